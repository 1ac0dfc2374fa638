// Command gennotes writes the scanner benchmark corpus: n deterministic
// Markdown notes of about size bytes each.
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
	out := flag.String("out", "", "directory to write (required)")
	flag.Parse()
	if *out == "" || *n < 0 || *size < 256 {
		flag.Usage()
		os.Exit(2)
	}
	if err := corpus.WriteDir(*out, *n, *size); err != nil {
		fmt.Fprintln(os.Stderr, "gennotes:", err)
		os.Exit(1)
	}
}
