package main

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func alive(context.Context) error { return nil }

func TestArrivalsSeesFilesInNewDirectories(t *testing.T) {
	root := t.TempDir()
	a, err := watchArrivals(root)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	want := map[string][32]byte{"top.md": sha256.Sum256([]byte("top\n")), "sub/deep/f.md": sha256.Sum256([]byte("deep\n"))}
	done := make(chan error, 1)
	go func() {
		_, err := a.wait(context.Background(), want, time.Minute, alive)
		done <- err
	}()
	if err := os.WriteFile(filepath.Join(root, "top.md"), []byte("top\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "sub", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "sub", "deep", "f.md"), []byte("deep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("wait = %v, want nil", err)
	}
}

func TestArrivalsWantsTheContent(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f.md"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := watchArrivals(root)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	want := map[string][32]byte{"f.md": sha256.Sum256([]byte("new\n"))}
	_, err = a.wait(context.Background(), want, 50*time.Millisecond, alive)
	if err == nil || !strings.Contains(err.Error(), "1 of 1 files did not arrive") {
		t.Errorf("wait for content the file does not hold = %v, want the files that did not arrive", err)
	}
}
