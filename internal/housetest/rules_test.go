package housetest

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strings"
)

// logMethods are the slog calls whose arguments after the message are
// key-value pairs or attributes.
var logMethods = []string{
	"Debug", "Info", "Warn", "Error",
	"DebugContext", "InfoContext", "WarnContext", "ErrorContext",
	"Log", "LogAttrs", "With",
}

// attrFuncs are the slog functions that make one attribute from a key.
var attrFuncs = []string{"Any", "String", "Group"}

// errorLogKeys returns an entry for each log call in f that keys a value
// "error": the house keys an error "err", so that one query finds every
// failure in the logs.
func errorLogKeys(fset *token.FileSet, f *ast.File, file string) []string {
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		var keys []ast.Expr
		switch {
		case slices.Contains(logMethods, sel.Sel.Name) && len(call.Args) > 1:
			keys = call.Args[1:]
		case slices.Contains(attrFuncs, sel.Sel.Name) && isIdent(sel.X, "slog") && len(call.Args) > 0:
			keys = call.Args[:1]
		}
		for _, k := range keys {
			if lit, ok := k.(*ast.BasicLit); ok && lit.Kind == token.STRING && lit.Value == `"error"` {
				found = append(found, fmt.Sprintf(`%s:%d: a log line keys its error "error", want "err"`, file, fset.Position(lit.Pos()).Line))
			}
		}
		return true
	})
	return found
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// releaseSeams returns an entry for each package-level variable named
// testHook... in a file that a build without the tag testhooks compiles:
// a test seam is then a branch on the program's own path.
func releaseSeams(fset *token.FileSet, f *ast.File, file string) []string {
	if taggedTesthooks(f) {
		return nil
	}
	var found []string
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.VAR {
			continue
		}
		for _, spec := range gen.Specs {
			for _, name := range spec.(*ast.ValueSpec).Names {
				if strings.HasPrefix(name.Name, "testHook") {
					found = append(found, fmt.Sprintf("%s:%d: %s is a test seam in a file the release build compiles; declare it under //go:build testhooks",
						file, fset.Position(name.Pos()).Line, name.Name))
				}
			}
		}
	}
	return found
}

// taggedTesthooks reports whether f builds only with the tag testhooks.
func taggedTesthooks(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() >= f.Package {
			break
		}
		for _, c := range g.List {
			if expr, ok := strings.CutPrefix(c.Text, "//go:build "); ok {
				return strings.TrimSpace(expr) == "testhooks"
			}
		}
	}
	return false
}
