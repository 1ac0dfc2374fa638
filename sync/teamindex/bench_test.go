package teamindex

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

// benchNotes is how many notes the benchmarks' team directory holds, of
// about 2 KB each.
const benchNotes = 500

// benchFixture syncs benchNotes notes into dir, their files an hour old,
// so the state's index spares them the hash as after the daemon's sync.
func benchFixture(b *testing.B, dir string) *fixture {
	b.Helper()
	f := newFixtureIn(b, dir, nil)
	old := time.Now().Add(-time.Hour)
	body := strings.Repeat("A line of what the team learned about this repo.\n", 40)
	for i := range benchNotes {
		f.write(b, fmt.Sprintf("area%d/note%03d.md", i%10, i), note(fmt.Sprintf("note %d", i), "what note "+fmt.Sprint(i)+" is about", body), old)
	}
	f.sync(b)
	return f
}

// BenchmarkIndex builds and renders the index of 500 synced notes whose
// stat the state's index matches: no note is hashed.
func BenchmarkIndex(b *testing.B) {
	f := benchFixture(b, filepath.Join(b.TempDir(), "team"))
	now := time.Now()
	for b.Loop() {
		idx, err := Build(f.src)
		if err != nil {
			b.Fatal(err)
		}
		if err := Render(io.Discard, idx, now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexRehash is BenchmarkIndex with every note touched since
// the sync: each is read and hashed.
func BenchmarkIndexRehash(b *testing.B) {
	f := benchFixture(b, filepath.Join(b.TempDir(), "team"))
	touched := time.Now().Add(-time.Minute)
	err := filepath.WalkDir(f.src.Dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			err = os.Chtimes(path, touched, touched)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	for b.Loop() {
		idx, err := Build(f.src)
		if err != nil || len(idx.Notes) != benchNotes {
			b.Fatalf("Build() = %d notes, %v; want %d", len(idx.Notes), err, benchNotes)
		}
		if err := Render(io.Discard, idx, now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionStart is the whole hook on 500 notes: the input, git
// finding the checkout, the index and its rendering.
func BenchmarkSessionStart(b *testing.B) {
	base, home := claudetest.Home(b)
	checkout := claudetest.Checkout(b, filepath.Join(base, "src", "app"), "git@github.com:acme/app.git")
	f := benchFixture(b, claude.TeamDir(home, checkout))
	input := `{"hook_event_name":"SessionStart","source":"startup","cwd":"` + checkout + `"}`
	locate := func(claude.Repo) (Source, error) { return f.src, nil }
	for b.Loop() {
		var out strings.Builder
		SessionStart(context.Background(), strings.NewReader(input), &out, Options{Locate: locate})
		if !strings.HasPrefix(out.String(), "Team memory of acme/app") {
			b.Fatalf("SessionStart wrote %q", out.String())
		}
	}
}
