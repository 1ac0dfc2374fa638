package proclab

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Outside any module, Build says so plainly: the go command succeeds
// there, so there is no error of its own to wrap.
func TestBuildOutsideTheModuleSaysWhy(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	err := Build(context.Background(), filepath.Join(dir, "teammemd"), "")
	if err == nil {
		t.Fatal("Build outside the module: no error")
	}
	if msg := err.Error(); !strings.Contains(msg, "not inside it") || strings.Contains(msg, "%!") {
		t.Fatalf("Build outside the module: %q, want a plain reason", msg)
	}
}
