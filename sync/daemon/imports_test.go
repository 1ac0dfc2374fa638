package daemon

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDaemonLeavesHTTPToMemsync checks that the daemon decides on
// failures by memsync's outcomes alone: none of its non-test files
// imports net/http or looks inside api.Error, so HTTP statuses have one
// reader, memsync.Classify.
func TestDaemonLeavesHTTPToMemsync(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "net/http" {
				t.Errorf("%s imports net/http, want HTTP left to memsync", fset.Position(imp.Pos()))
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "api" {
					t.Errorf("%s uses api.Error, want memsync.Classify", fset.Position(sel.Pos()))
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no non-test Go file found in the package directory")
	}
}
