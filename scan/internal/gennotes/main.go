// Command gennotes writes a scanner benchmark corpus: n deterministic
// Markdown notes of about size bytes each, keyword-dense (corpus.Note, a
// planted secret in every 100th) or clean (corpus.CleanNote).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/teammemd/teammemd/scan/internal/corpus"
)

func main() {
	n := flag.Int("n", 10000, "number of notes")
	size := flag.Int("size", 4096, "approximate bytes per note")
	kind := flag.String("kind", "dense", "dense (keyword-dense, a few secrets) or clean")
	out := flag.String("out", "", "directory to write (required)")
	flag.Parse()
	write := map[string]func(string, int, int) error{"dense": corpus.WriteDir, "clean": corpus.WriteCleanDir}[*kind]
	if *out == "" || *n < 0 || *size < 256 || write == nil {
		flag.Usage()
		os.Exit(2)
	}
	if err := write(*out, *n, *size); err != nil {
		fmt.Fprintln(os.Stderr, "gennotes:", err)
		os.Exit(1)
	}
}
