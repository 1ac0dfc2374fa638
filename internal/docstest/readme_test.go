package docstest

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// maxReadmeBytes keeps the README a short start; the chapters under docs/
// hold the rest.
const maxReadmeBytes = 10 * 1024

func TestReadmeIsShort(t *testing.T) {
	root := moduleRoot(t)
	if n := len(readFile(t, root, "README.md")); n > maxReadmeBytes {
		t.Errorf("README.md is %d bytes, want at most %d: move detail into a chapter under docs/", n, maxReadmeBytes)
	}
}

// ciTestMarker is the comment in .ci/run above the test command it runs.
const ciTestMarker = "# The README's test command:"

// The README's test command is, byte for byte, the one .ci/run runs.
func TestReadmeGivesTheCITestCommand(t *testing.T) {
	root := moduleRoot(t)
	command, err := ciTestCommand(readFile(t, root, ".ci/run"))
	if err != nil {
		t.Fatal(err)
	}
	if readme := readFile(t, root, "README.md"); !strings.Contains(readme, "\n```sh\n"+command+"\n```\n") {
		t.Errorf("README.md does not give .ci/run's test command as a fenced sh code block:\n%s", command)
	}
}

// ciTestCommand returns the line after ciTestMarker in the text of .ci/run.
func ciTestCommand(script string) (string, error) {
	_, after, ok := strings.Cut(script, ciTestMarker+"\n")
	line, _, _ := strings.Cut(after, "\n")
	if !ok || strings.TrimSpace(line) == "" {
		return "", errNoCommand
	}
	return line, nil
}

var errNoCommand = errors.New(".ci/run has no command line after the line " + strconv.Quote(ciTestMarker))

func TestCITestCommand(t *testing.T) {
	tests := []struct {
		script, want string
		wantErr      bool
	}{
		{"set -e\n" + ciTestMarker + "\ngo test ./...\n", "go test ./...", false},
		{"set -e\n" + ciTestMarker + "\ngo test ./...", "go test ./...", false},
		{"set -e\ngo test ./...\n", "", true},
		{ciTestMarker + "\n\ngo test ./...\n", "", true},
	}
	for _, tt := range tests {
		got, err := ciTestCommand(tt.script)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ciTestCommand(%q) = %q, %v; want %q, error %t", tt.script, got, err, tt.want, tt.wantErr)
		}
	}
}
