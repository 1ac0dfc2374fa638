package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The references in docs/reference are what gendocs writes from the
// definitions in this binary.
func TestReferenceUpToDate(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runCLI(t, "gendocs", "--reference", dir); code != 0 {
		t.Fatalf("gendocs: exit %d %s", code, stderr)
	}
	committed := filepath.Join("..", "..", "docs", "reference")
	want := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		want[rel] = true
		gen, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join(committed, rel))
		if err != nil || string(got) != string(gen) {
			t.Errorf("docs/reference/%s is not what gendocs writes: run go run ./cmd/teammemd gendocs --reference docs/reference to update", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cli, err := os.ReadDir(filepath.Join(committed, "cli"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cli {
		if !want[filepath.Join("cli", e.Name())] {
			t.Errorf("docs/reference/cli/%s is for no command: run go run ./cmd/teammemd gendocs --reference docs/reference after removing docs/reference/cli", e.Name())
		}
	}
}

// gendocs writes a man page per command.
func TestGendocsMan(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runCLI(t, "gendocs", "--man", dir); code != 0 {
		t.Fatalf("gendocs --man: exit %d %s", code, stderr)
	}
	for _, name := range []string{"teammemd.1", "teammemd-conflicts-resolve.1", "teammemd-token-revoke.1"} {
		page, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.Contains(string(page), ".SH SYNOPSIS") {
			t.Errorf("man page %s: %v, want a page with a synopsis", name, err)
		}
	}
}

// configDocs describes every key of Config and no other.
func TestConfigDocsCoverEveryKey(t *testing.T) {
	keys := map[string]bool{}
	for _, tb := range configTables() {
		if sectionDocs[tb.path] == "" {
			t.Errorf("table [%s] has no entry in sectionDocs", tb.path)
		}
		for _, k := range tb.keys {
			keys[k.path] = true
			if configDocs[k.path].doc == "" {
				t.Errorf("config key %s has no entry in configDocs", k.path)
			}
		}
	}
	for path := range configDocs {
		if !keys[path] {
			t.Errorf("configDocs describes %s, which Config does not have", path)
		}
	}
}

// No --json schema holds a time.Duration, which would encode as
// nanoseconds.
func TestJSONSchemasHoldNoDuration(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var check func(path string, t2 reflect.Type)
	check = func(path string, typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ == durationType {
			t.Errorf("%s is a time.Duration", path)
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			check(path+"."+typ.Field(i).Name, typ.Field(i).Type)
		}
	}
	for _, o := range jsonOutputs {
		check(o.command, reflect.TypeOf(o.value))
	}
}

// completion writes a script for each shell; bash accepts bash's.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		stdout, stderr, code := runCLI(t, "completion", shell)
		if code != 0 || !strings.Contains(stdout, "teammemd") {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q; want a script", shell, code, len(stdout), stderr)
		}
		if shell != "bash" {
			continue
		}
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Skip("no bash to check the bash completion with")
		}
		script := filepath.Join(t.TempDir(), "teammemd.bash")
		if err := os.WriteFile(script, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
			t.Errorf("bash -n on the bash completion: %v\n%s", err, out)
		}
	}
}
