package docstest

import (
	"path/filepath"
	"regexp"
	"testing"
)

// tlsFile matches a file in the server's TLS directory.
var tlsFile = regexp.MustCompile(`/etc/teammemd/tls/([^\s"'` + "`" + `),;]+)`)

// tlsNames are the one pair of names the docs, example configs and units
// give the server's certificate and key: those ACME clients write.
var tlsNames = map[string]bool{"fullchain.pem": true, "privkey.pem": true}

// Every page, example config and unit names the server's certificate and
// key in /etc/teammemd/tls/ by the same two names, so that following any
// of them puts the files where the others look.
func TestTLSFileNames(t *testing.T) {
	root := moduleRoot(t)
	var files []string
	for _, pattern := range []string{"README.md", "docs/*.md", "docs/*/*.md", "docs/*/*/*.md", "configs/*.toml", "systemd/*"} {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	seen := 0
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		for _, m := range tlsFile.FindAllStringSubmatch(readFile(t, root, filepath.ToSlash(rel)), -1) {
			seen++
			if !tlsNames[m[1]] {
				t.Errorf("%s: %s, want fullchain.pem or privkey.pem", rel, m[0])
			}
		}
	}
	if seen == 0 {
		t.Error("no file names /etc/teammemd/tls/: the pattern matches nothing")
	}
}
