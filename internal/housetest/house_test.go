package housetest

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// memsyncName is the one name package memsync is imported under.
const memsyncName = "memsync"

// The module's own source keeps the house rules.
func TestHouseRules(t *testing.T) {
	root, module := moduleRoot(t)
	found, err := checkTree(root, module)
	if err != nil {
		t.Fatalf("checkTree(%s) = %v", root, err)
	}
	for _, f := range found {
		t.Error(f)
	}
}

// The checks find each kind of breach in a small tree, and nothing in a
// tree that keeps the rules.
func TestCheckTree(t *testing.T) {
	const mod = "module github.com/teammemd/teammemd\n\ngo 1.26\n"
	const memsyncPkg = "// Package memsync syncs.\npackage memsync\n"
	tests := []struct {
		name string
		tree map[string]string
		want []string
	}{
		{"rules kept", map[string]string{
			"sync/sync.go":          memsyncPkg,
			"sync/sync_test.go":     "package memsync\n",
			"sync/ext_test.go":      "package memsync_test\n\nimport memsync \"github.com/teammemd/teammemd/sync\"\n",
			"sync/daemon/daemon.go": "// Package daemon runs.\npackage daemon\n\nimport (\n\t\"sync\"\n\n\tmemsync \"github.com/teammemd/teammemd/sync\"\n)\n",
			"sync/daemon/more.go":   "package daemon\n",
			"cmd/tool/main.go":      "//go:build linux\n\n// Command tool does a thing.\npackage main\n",
			"testdata/x/x.go":       "package x\n\nimport \"github.com/teammemd/teammemd/sync\"\n",
			".hidden/y.go":          "package y\n",
			"_old/z.go":             "package z\n",
			"README.md":             "not go\n",
		}, nil},
		{"no doc comment", map[string]string{
			"sync/sync.go": memsyncPkg,
			"scan/scan.go": "package scan\n",
		}, []string{"scan: package scan has no doc comment"}},
		{"doc comment in a test file only", map[string]string{
			"scan/scan.go":      "package scan\n",
			"scan/scan_test.go": "// Package scan scans.\npackage scan\n",
		}, []string{"scan: package scan has no doc comment"}},
		{"comment apart from the package clause", map[string]string{
			"scan/scan.go": "// Copyright the authors.\n\npackage scan\n",
		}, []string{"scan: package scan has no doc comment"}},
		{"only a build constraint", map[string]string{
			"scan/scan.go": "//go:build linux\n\npackage scan\n",
		}, []string{"scan: package scan has no doc comment"}},
		{"an undocumented command", map[string]string{
			"cmd/tool/main.go": "package main\n",
		}, []string{"cmd/tool: package main has no doc comment"}},
		{"the module root", map[string]string{
			"root.go": "package teammemd\n",
		}, []string{".: package teammemd has no doc comment"}},
		{"memsync without a name", map[string]string{
			"sync/sync.go": memsyncPkg,
			"watch/w.go":   "// Package watch watches.\npackage watch\n\nimport \"github.com/teammemd/teammemd/sync\"\n",
		}, []string{`watch/w.go:4: imports "github.com/teammemd/teammemd/sync" without a name, want memsync "github.com/teammemd/teammemd/sync"`}},
		{"memsync as sync", map[string]string{
			"watch/w.go": "// Package watch watches.\npackage watch\n\nimport (\n\t\"fmt\"\n\tsync \"github.com/teammemd/teammemd/sync\"\n)\n",
		}, []string{`watch/w.go:6: imports "github.com/teammemd/teammemd/sync" as sync, want memsync "github.com/teammemd/teammemd/sync"`}},
		{"memsync in a test file, blank", map[string]string{
			"watch/w.go":      "// Package watch watches.\npackage watch\n",
			"watch/w_test.go": "package watch\n\nimport _ \"github.com/teammemd/teammemd/sync\"\n",
		}, []string{`watch/w_test.go:3: imports "github.com/teammemd/teammemd/sync" as _, want memsync "github.com/teammemd/teammemd/sync"`}},
		{"memsync dot-imported", map[string]string{
			"watch/w.go": "// Package watch watches.\npackage watch\n\nimport . \"github.com/teammemd/teammemd/sync\"\n",
		}, []string{`watch/w.go:4: imports "github.com/teammemd/teammemd/sync" as ., want memsync "github.com/teammemd/teammemd/sync"`}},
		{"both rules broken in one package", map[string]string{
			"scan/a.go": "package scan\n\nimport ms \"github.com/teammemd/teammemd/sync\"\n",
			"scan/b.go": "package scan\n",
		}, []string{
			`scan/a.go:3: imports "github.com/teammemd/teammemd/sync" as ms, want memsync "github.com/teammemd/teammemd/sync"`,
			"scan: package scan has no doc comment",
		}},
		{"a test helper imported by the program", map[string]string{
			"server/api/a.go":      "// Package api is the contract.\npackage api\n\nimport \"github.com/teammemd/teammemd/internal/entryhash\"\n",
			"server/api/a_test.go": "package api\n\nimport \"github.com/teammemd/teammemd/internal/proclab\"\n",
			"sync/sync.go":         memsyncPkg[:len(memsyncPkg)-1] + "\n\nimport \"github.com/teammemd/teammemd/internal/loopback\"\n",
			"cmd/tool/main.go":     "// Command tool does a thing.\npackage main\n\nimport \"github.com/teammemd/teammemd/internal/proclab\"\n",
		}, []string{`server/api/a.go:4: imports "github.com/teammemd/teammemd/internal/entryhash", which brings a test helper into the program`}},
		{"a log line keyed error", map[string]string{
			"scan/scan.go": "// Package scan scans.\npackage scan\n\nimport (\n\t\"context\"\n\t\"log/slog\"\n)\n\n" +
				"func f(ctx context.Context, log *slog.Logger, err error) {\n" +
				"\tlog.Warn(\"failed\", \"err\", err)\n" +
				"\tlog.ErrorContext(ctx, \"failed\", \"repo\", \"r\", \"error\", err)\n" +
				"\tlog.Info(\"error\")\n" +
				"\tlog.LogAttrs(ctx, slog.LevelWarn, \"failed\", slog.Any(\"error\", err))\n}\n",
			"scan/scan_test.go": "package scan\n\nimport \"log/slog\"\n\nfunc g() { slog.Warn(\"x\", \"error\", 1) }\n",
		}, []string{
			`scan/scan.go:11: a log line keys its error "error", want "err"`,
			`scan/scan.go:13: a log line keys its error "error", want "err"`,
		}},
		{"a test seam in the release build", map[string]string{
			"scan/scan.go":   "// Package scan scans.\npackage scan\n\n// testHookScan runs first.\nvar testHookScan func()\n\nvar (\n\tok = 1\n\ttestHookEnd func()\n)\n",
			"scan/seam.go":   "//go:build testhooks\n\npackage scan\n\nvar testHookTagged func()\n",
			"scan/neg.go":    "//go:build !testhooks\n\npackage scan\n\nvar testHookUntagged func()\n",
			"scan/x_test.go": "package scan\n\nvar testHookInTest func()\n",
		}, []string{
			`scan/neg.go:5: testHookUntagged is a test seam in a file the release build compiles; declare it under //go:build testhooks`,
			`scan/scan.go:5: testHookScan is a test seam in a file the release build compiles; declare it under //go:build testhooks`,
			`scan/scan.go:9: testHookEnd is a test seam in a file the release build compiles; declare it under //go:build testhooks`,
		}},
		{"the command imported from below", map[string]string{
			"sync/sync.go":      memsyncPkg[:len(memsyncPkg)-1] + "\n\nimport \"github.com/teammemd/teammemd/cmd/teammemd/flags\"\n",
			"sync/sync_test.go": "package memsync\n\nimport \"github.com/teammemd/teammemd/cmd/teammemd/flags\"\n",
		}, []string{`sync/sync.go:4: imports "github.com/teammemd/teammemd/cmd/teammemd/flags", which brings the command into a package below it`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := writeTree(t, mod, tt.tree)
			got, err := checkTree(root, "github.com/teammemd/teammemd")
			if err != nil {
				t.Fatalf("checkTree(%s) = %v", tt.name, err)
			}
			if g, w := strings.Join(got, "\n"), strings.Join(tt.want, "\n"); g != w {
				t.Errorf("checkTree(%s) =\n%s\nwant\n%s", tt.name, g, w)
			}
		})
	}
}

// A file that does not parse is an error, never a file skipped.
func TestCheckTreeParseError(t *testing.T) {
	root := writeTree(t, "module github.com/teammemd/teammemd\n", map[string]string{"scan/scan.go": "// Package scan.\npackage\n"})
	if _, err := checkTree(root, "github.com/teammemd/teammemd"); err == nil || !strings.Contains(err.Error(), "scan.go") {
		t.Errorf("checkTree(a file that does not parse) = %v, want an error naming it", err)
	}
}

// writeTree writes go.mod and files (slash paths) into a new directory.
func writeTree(t *testing.T, goMod string, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	files["go.mod"] = goMod
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// moduleRoot is the directory of the go.mod above the working directory,
// and the module path it declares.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			return dir, modulePath(t, data)
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(dir) == dir {
			t.Fatalf("no go.mod above the working directory: %v", err)
		}
		dir = filepath.Dir(dir)
	}
}

func modulePath(t *testing.T, goMod []byte) string {
	t.Helper()
	for line := range strings.Lines(string(goMod)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	t.Fatalf("go.mod declares no module:\n%s", goMod)
	return ""
}

// checkTree returns every breach of the house rules in the Go files of the
// module at root, sorted, each as "place: what". It walks the directories
// the go tool builds from: not testdata, nor one whose name starts with "."
// or "_", nor another module inside this one.
func checkTree(root, module string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root && (ignoredName(d.Name()) || d.Name() == "testdata" || exists(filepath.Join(path, "go.mod"))) {
			return filepath.SkipDir
		}
		breaches, err := checkDir(root, path, module)
		found = append(found, breaches...)
		return err
	})
	slices.Sort(found)
	return found, err
}

// ignoredName reports whether the go tool ignores a file or directory of
// this name.
func ignoredName(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// checkDir checks the Go files directly in dir: each package of its
// non-test files has a doc comment in one of them, and no file imports
// package memsync under another name.
func checkDir(root, dir, module string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	documented := map[string]bool{}
	var found []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || ignoredName(name) {
			continue
		}
		path := filepath.Join(dir, name)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return found, fmt.Errorf("parse %s: %w", path, err)
		}
		found = append(found, misnamedMemsync(fset, f, rel(root, path), module+"/sync")...)
		if !strings.HasSuffix(name, "_test.go") {
			found = append(found, upwardImports(fset, f, rel(root, path), module)...)
			found = append(found, errorLogKeys(fset, f, rel(root, path))...)
			found = append(found, releaseSeams(fset, f, rel(root, path))...)
		}
		if !strings.HasSuffix(name, "_test.go") {
			pkg := f.Name.Name
			documented[pkg] = documented[pkg] || strings.TrimSpace(f.Doc.Text()) != ""
		}
	}
	for pkg, ok := range documented {
		if !ok {
			found = append(found, fmt.Sprintf("%s: package %s has no doc comment", rel(root, dir), pkg))
		}
	}
	return found, nil
}

// misnamedMemsync returns an entry for each import of memsyncPath in f
// under a name other than memsync, the name left out included: the path
// ends in sync, and a reader takes the package for the standard library's.
func misnamedMemsync(fset *token.FileSet, f *ast.File, file, memsyncPath string) []string {
	var found []string
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil || path != memsyncPath {
			continue
		}
		how := "without a name"
		if spec.Name != nil {
			if spec.Name.Name == memsyncName {
				continue
			}
			how = "as " + spec.Name.Name
		}
		found = append(found, fmt.Sprintf("%s:%d: imports %q %s, want %s %q",
			file, fset.Position(spec.Pos()).Line, path, how, memsyncName, path))
	}
	return found
}

// productionInternal are the packages under internal/ that the program
// itself runs; every other one there is a test helper (a lab, a fake, a
// house rule).
var productionInternal = []string{"internal/loopback", "internal/pause", "internal/savetrace", "internal/shell"}

// upwardImports returns an entry for each import of a non-test file that
// runs against the flow of the house: a file under server/ or sync/
// importing a test helper of internal/, or a file outside cmd/ importing
// anything of cmd/.
func upwardImports(fset *token.FileSet, f *ast.File, file, module string) []string {
	var found []string
	inServerOrSync := strings.HasPrefix(file, "server/") || strings.HasPrefix(file, "sync/")
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		pkg, ok := strings.CutPrefix(path, module+"/")
		if !ok {
			continue
		}
		var why string
		switch {
		case inServerOrSync && strings.HasPrefix(pkg, "internal/") && !slices.Contains(productionInternal, pkg):
			why = "a test helper into the program"
		case strings.HasPrefix(pkg, "cmd/") && !strings.HasPrefix(file, "cmd/"):
			why = "the command into a package below it"
		default:
			continue
		}
		found = append(found, fmt.Sprintf("%s:%d: imports %q, which brings %s", file, fset.Position(spec.Pos()).Line, path, why))
	}
	return found
}

// rel is path relative to root, with slashes.
func rel(root, path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}
