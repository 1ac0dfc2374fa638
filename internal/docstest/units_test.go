package docstest

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoURL is the project's GitHub address: a Documentation= URL under it
// names a file of the module (README.md without a path) and a heading.
const repoURL = "https://github.com/teammemd/teammemd"

var documentationLine = regexp.MustCompile(`(?m)^Documentation=(.+)$`)

// The Documentation= URLs of the systemd units, those in systemd/ and the
// one service install writes, lead to a file and a heading that exist.
func TestUnitDocumentationLinks(t *testing.T) {
	root := moduleRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "systemd", "*.service"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "service", "systemd.go"))
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		matches := documentationLine.FindAllStringSubmatch(readFile(t, root, filepath.ToSlash(rel)), -1)
		if len(matches) == 0 {
			t.Errorf("%s: no Documentation= line", rel)
		}
		for _, m := range matches {
			for _, u := range strings.Fields(m[1]) {
				target, ours := unitTarget(u)
				if why := checkTarget(root, "README.md", target); ours && why != "" {
					t.Errorf("%s: Documentation=%s: %s", rel, u, why)
				}
			}
		}
	}
}

// unitTarget is the module's file and heading a URL under repoURL names,
// as a link from README.md would; ours is false for a URL elsewhere.
func unitTarget(u string) (target string, ours bool) {
	rest, ok := strings.CutPrefix(u, repoURL)
	if !ok {
		return "", false
	}
	rest = strings.TrimPrefix(rest, "/blob/main/")
	return strings.TrimPrefix(rest, "/"), true
}
