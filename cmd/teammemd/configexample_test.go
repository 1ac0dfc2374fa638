package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// exampleHeader matches a table header of an example config file, set or
// commented out: "[personal]", "# [[daemon.repo]]".
var exampleHeader = regexp.MustCompile(`^#?\s*\[\[?([a-z_.]+)\]\]?\s*$`)

// exampleKey matches a key line of an example config file, set or
// commented out: `debounce = "2s"`, `# state_dir = "..."`.
var exampleKey = regexp.MustCompile(`^#?\s*([a-z_]+)\s*=`)

// exampleKeys returns the dotted path of every key the example config
// file at path shows, set or commented out, under the table it is in.
func exampleKeys(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	table := ""
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if m := exampleHeader.FindStringSubmatch(line); m != nil {
			table = m[1]
		} else if m := exampleKey.FindStringSubmatch(line); m != nil && table != "" {
			keys[table+"."+m[1]] = true
		}
	}
	return keys
}

// TestExampleConfigsDocumentEveryKey: configs/server.toml shows every key
// of [server] and its tables, and configs/daemon.toml every key of every
// other section, set or commented out, and neither shows a key the
// config file does not have. The docs and doctor send readers to them
// for every key.
func TestExampleConfigsDocumentEveryKey(t *testing.T) {
	files := map[string][]string{}
	for _, tb := range configTables() {
		file := "../../configs/daemon.toml"
		if tb.path == "server" || strings.HasPrefix(tb.path, "server.") {
			file = "../../configs/server.toml"
		}
		for _, k := range tb.keys {
			files[file] = append(files[file], k.path)
		}
	}
	for file, want := range files {
		shown := exampleKeys(t, file)
		for _, k := range want {
			if !shown[k] {
				t.Errorf("%s does not show the key %s", file, k)
			}
		}
		for k := range shown {
			if !slices.Contains(want, k) {
				t.Errorf("%s shows %s, which the config file does not have", file, k)
			}
		}
	}
}
