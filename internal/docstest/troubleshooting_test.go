package docstest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// troubleshooting is the chapter that lists every status state and doctor
// check with its fix.
const troubleshooting = "docs/11-troubleshooting.md"

// Every state the daemon reports, read from the code, is in the first
// column of a table of the troubleshooting chapter.
func TestTroubleshootingNamesEveryState(t *testing.T) {
	root := moduleRoot(t)
	states, err := stateConsts(filepath.Join(root, "sync"))
	if err != nil {
		t.Fatal(err)
	}
	if len(states) == 0 {
		t.Fatal("found no State constants under sync/: the extraction no longer matches the code")
	}
	printed, err := selectorsOf(filepath.Join(root, "cmd", "teammemd", "status.go"), "daemon", "State")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range printed {
		if _, ok := states[name]; !ok {
			t.Errorf("cmd/teammemd/status.go uses daemon.%s, which is not a State constant found under sync/", name)
		}
	}
	names := tableNames(readFile(t, root, troubleshooting))
	for name, value := range states {
		if !names[value] {
			t.Errorf("status state %q (%s) is not in the first column of a table in %s", value, name, troubleshooting)
		}
	}
}

// Every check teammemd doctor reports, read from the code, is in the
// first column of a table of the troubleshooting chapter.
func TestTroubleshootingNamesEveryDoctorCheck(t *testing.T) {
	root := moduleRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "cmd", "teammemd", "doctor*.go"))
	if err != nil {
		t.Fatal(err)
	}
	checks, err := reportedChecks(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) == 0 {
		t.Fatal("found no report calls in cmd/teammemd/doctor*.go: the extraction no longer matches the code")
	}
	names := tableNames(readFile(t, root, troubleshooting))
	for _, check := range checks {
		if !names[check] {
			t.Errorf("doctor check %q is not in the first column of a table in %s", check, troubleshooting)
		}
	}
}

// The extraction finds State constants in a tree and report calls in
// files, and leaves out tests and everything else.
func TestExtraction(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sync/daemon/status.go": "package daemon\n\nconst (\n\tStateIdle = \"idle\" // in sync\n\tStateHeld = \"held\"\n\tstateOther = \"x\"\n\tOther = \"y\"\n)\n\nconst StateOne = \"one\"\n",
		"sync/daemon/x_test.go": "package daemon\n\nconst StateTest = \"test\"\n",
		"cmd/doctor.go": "package main\n\nfunc f(d *doctor, name string) {\n\td.report(\"ok\", \"config\", \"\", \"\")\n" +
			"\td.report(\"ok\", name, \"\", \"\")\n\td.other(\"ok\", \"nope\")\n\td.report(\"FAIL\", \"team dir\", \"\", \"fix\")\n" +
			"\t_ = daemon.StateIdle\n\t_ = daemon.Other\n}\n",
	})
	states, err := stateConsts(filepath.Join(root, "sync"))
	want := map[string]string{"StateIdle": "idle", "StateHeld": "held", "StateOne": "one"}
	if err != nil || fmt.Sprint(states) != fmt.Sprint(want) {
		t.Errorf("stateConsts = %v, %v; want %v", states, err, want)
	}
	checks, err := reportedChecks([]string{filepath.Join(root, "cmd", "doctor.go")})
	if err != nil || !slices.Equal(checks, []string{"config", "team dir"}) {
		t.Errorf("reportedChecks = %q, %v; want config, team dir", checks, err)
	}
	sel, err := selectorsOf(filepath.Join(root, "cmd", "doctor.go"), "daemon", "State")
	if err != nil || !slices.Equal(sel, []string{"StateIdle"}) {
		t.Errorf("selectorsOf = %q, %v; want StateIdle", sel, err)
	}
}

func TestTableNames(t *testing.T) {
	text := "| state | what |\n|---|---|\n| `pulling`, `pushing` | a `pull` |\n| `team dir` | x |\n" +
		"Prose with `idle` in it.\n\n    | `indented` | code |\n"
	got := tableNames(text)
	for _, name := range []string{"pulling", "pushing", "team dir"} {
		if !got[name] {
			t.Errorf("tableNames lacks %q: %v", name, got)
		}
	}
	for _, name := range []string{"pull", "idle", "indented", "state"} {
		if got[name] {
			t.Errorf("tableNames has %q: %v", name, got)
		}
	}
}

// stateConsts returns the string constants named State... declared in the
// Go files under dir, tests left out, by name.
func stateConsts(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			addStates(out, decl)
		}
		return nil
	})
	return out, err
}

// addStates adds the State... string constants of one declaration.
func addStates(out map[string]string, decl ast.Decl) {
	gd, ok := decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.CONST {
		return
	}
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, name := range vs.Names {
			if !isStateName(name.Name) || i >= len(vs.Values) {
				continue
			}
			if v, ok := stringLit(vs.Values[i]); ok {
				out[name.Name] = v
			}
		}
	}
}

func isStateName(name string) bool {
	rest, ok := strings.CutPrefix(name, "State")
	return ok && rest != "" && rest[0] >= 'A' && rest[0] <= 'Z'
}

// reportedChecks returns the check names doctor prints: the string
// literal second argument of every report call in files, each once, in
// the order found.
func reportedChecks(files []string) ([]string, error) {
	var out []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "report" {
				if name, ok := stringLit(call.Args[1]); ok && !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
			return true
		})
	}
	return out, nil
}

// selectorsOf returns the names pkg.prefix... the Go file at path uses,
// each once.
func selectorsOf(path, pkg, prefix string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == pkg && strings.HasPrefix(sel.Sel.Name, prefix) && !slices.Contains(out, sel.Sel.Name) {
			out = append(out, sel.Sel.Name)
		}
		return true
	})
	return out, nil
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

var spanText = regexp.MustCompile("`([^`]+)`")

// tableNames returns the code spans in the first cell of the table rows
// of a Markdown text, outside code blocks.
func tableNames(text string) map[string]bool {
	out := map[string]bool{}
	for line := range strings.SplitSeq(proseOnly(text), "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "|") || len(cells) < 3 {
			continue
		}
		for _, m := range spanText.FindAllStringSubmatch(cells[1], -1) {
			out[m[1]] = true
		}
	}
	return out
}
