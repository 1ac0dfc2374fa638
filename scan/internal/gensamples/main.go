// Command gensamples derives the scanner's recall corpus from gitleaks' own
// rule definitions: for every rule of the default ruleset it takes the
// string literals of the Go function that defines the rule (its true
// positive samples), tries each one alone, as `<id>_api_token = "<lit>"`
// and after one of the rule's keywords,
// and, when no literal is found by that rule, synthesises a string from the
// rule's regular expression. The first sample the scanner attributes to the
// rule is kept. The corpus is written base64-encoded, one rule a line
// ("rule-id<TAB>path<TAB>base64"), so it does not itself trip secret
// scanners. Rerun it after upgrading gitleaks:
//
//	go run ./scan/internal/gensamples -gitleaks $(go env GOMODCACHE)/github.com/zricethezav/gitleaks/v8@v8.30.1 > scan/testdata/recall.tsv
package main

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/teammemd/teammemd/scan"
	"github.com/zricethezav/gitleaks/v8/config"
)

func main() {
	src := flag.String("gitleaks", "", "gitleaks v8 source directory (required)")
	flag.Parse()
	if *src == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*src); err != nil {
		fmt.Fprintln(os.Stderr, "gensamples:", err)
		os.Exit(1)
	}
}

type rule struct {
	ID, Regex, Path string
	Keywords        []string
}

func run(src string) error {
	var def struct{ Rules []rule }
	if _, err := toml.Decode(config.DefaultConfig, &def); err != nil {
		return fmt.Errorf("default config: %w", err)
	}
	literals, err := ruleLiterals(filepath.Join(src, "cmd/generate/config/rules"))
	if err != nil {
		return err
	}
	zero := 0
	s, err := scan.New(scan.Config{DecodeDepth: &zero})
	if err != nil {
		return err
	}
	missing := 0
	for _, r := range def.Rules {
		path, sample, ok := findSample(s, r, literals[r.ID])
		if !ok {
			fmt.Fprintln(os.Stderr, "gensamples: no sample found for", r.ID)
			missing++
			continue
		}
		fmt.Printf("%s\t%s\t%s\n", r.ID, path, base64.StdEncoding.EncodeToString([]byte(sample)))
	}
	fmt.Fprintf(os.Stderr, "gensamples: %d rules, %d without a sample\n", len(def.Rules), missing)
	return nil
}

// findSample returns the first candidate the scanner attributes to r.
func findSample(s *scan.Scanner, r rule, lits []string) (path, sample string, ok bool) {
	var cands []string
	for _, l := range lits {
		cands = append(cands, l, r.ID+"_api_token = \""+l+"\"")
	}
	if r.Regex != "" {
		for seed := range 8 {
			if g, err := synthesize(r.Regex, seed); err == nil {
				cands = append(cands, g, "key = \""+g+"\"")
			}
		}
	}
	for _, c := range slices.Clone(cands) {
		for _, k := range r.Keywords {
			cands = append(cands, k+"_token = \""+c+"\"")
		}
	}
	paths := []string{"notes/sample.md"}
	if r.Path != "" {
		paths = nil
		for _, l := range lits {
			paths = append(paths, l, "notes/"+l)
		}
		if len(cands) == 0 {
			cands = []string{"placeholder\n"}
		}
	}
	for _, p := range paths {
		for _, c := range cands {
			fs, err := s.File(context.Background(), p, []byte(c))
			if err != nil {
				continue
			}
			if slices.ContainsFunc(fs, func(f scan.Finding) bool { return f.RuleID == r.ID }) {
				return p, c, true
			}
		}
	}
	return "", "", false
}

// ruleLiterals maps each rule id to the string literals of the function
// that declares it.
func ruleLiterals(dir string) (map[string][]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", name, err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
				collect(fn, out)
			}
		}
	}
	return out, nil
}

func collect(fn *ast.FuncDecl, out map[string][]string) {
	var ids, lits []string
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && k.Name == "RuleID" {
				if v, ok := unquote(n.Value); ok {
					ids = append(ids, v)
				}
			}
		case *ast.BasicLit:
			if v, ok := unquote(n); ok && len(v) >= 8 {
				lits = append(lits, v)
			}
		}
		return true
	})
	for _, id := range ids {
		out[id] = append(out[id], lits...)
	}
}

func unquote(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	v, err := strconv.Unquote(lit.Value)
	return v, err == nil
}
