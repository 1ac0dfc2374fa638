package daemon

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/watch"
)

// TestOwnWritesOnly: a batch is the pull's own when each path is still the
// file the pull wrote (same device, inode, size and mtime), still deleted,
// or a directory; an edit, a replacement or a recreation is the user's.
func TestOwnWritesOnly(t *testing.T) { bubble(t, testOwnWritesOnly) }

func testOwnWritesOnly(t *testing.T) {
	srv := startServer(t)
	dir := t.TempDir()
	eng := engineOn(t, srv, dir, t.TempDir())
	for _, k := range []string{"pulled.md", "grown.md", "same size.md", "replaced.md"} {
		write(t, dir, k, "from the server\n")
	}
	write(t, dir, "user.md", "never pulled\n")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	rep := memsync.Report{Written: map[string]memsync.FileID{}, Deleted: []string{"gone.md", "back.md"}}
	for _, k := range []string{"pulled.md", "grown.md", "same size.md", "replaced.md"} {
		id, err := eng.Identify(k)
		if err != nil {
			t.Fatal(err)
		}
		rep.Written[k] = id
	}
	o := newOwnWrites(eng.Identify)
	o.note(rep)
	write(t, dir, "grown.md", "from the server, then edited\n")
	write(t, dir, "same size.md", "FROM THE SERVER\n")
	later(t, filepath.Join(dir, "same size.md"))
	replaceKeepingTimes(t, filepath.Join(dir, "replaced.md"), "from the server\n")
	write(t, dir, "back.md", "recreated by the user\n")
	tests := []struct {
		name  string
		batch watch.Batch
		want  bool
	}{
		{"pulled file", watch.Batch{Paths: []string{"pulled.md"}}, true},
		{"pulled file and a directory", watch.Batch{Paths: []string{"pulled.md", "sub"}}, true},
		{"pulled deletion", watch.Batch{Paths: []string{"gone.md"}}, true},
		{"grown after the pull", watch.Batch{Paths: []string{"grown.md"}}, false},
		{"saved in place after the pull, same size", watch.Batch{Paths: []string{"same size.md"}}, false},
		{"replaced by the same content and times", watch.Batch{Paths: []string{"replaced.md"}}, false},
		{"recreated after the pull deleted it", watch.Batch{Paths: []string{"back.md"}}, false},
		{"a file the pull never wrote", watch.Batch{Paths: []string{"pulled.md", "user.md"}}, false},
		{"a removed path the pull never wrote", watch.Batch{Paths: []string{"old.md"}}, false},
		{"rescan", watch.Batch{Paths: []string{"pulled.md"}, Rescan: true}, false},
		{"empty", watch.Batch{}, false},
	}
	for _, tt := range tests {
		if got := o.only(tt.batch); got != tt.want {
			t.Errorf("only(%s %v) = %v, want %v", tt.name, tt.batch, got, tt.want)
		}
	}
}

// later moves path's modification time one second on, as a save a tick
// after the last one leaves it.
func later(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, time.Time{}, fi.ModTime().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
}

// replaceKeepingTimes renames a new file with content over path, with
// path's modification time: only the inode tells it apart.
func replaceKeepingTimes(t *testing.T, path, content string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, time.Time{}, fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// A repo whose pushes are refused keeps them stopped when its own pull
// writes a teammate's file: that is no user change.
func TestPullWritesKeepPushesSuppressed(t *testing.T) { bubble(t, testPullWritesKeepPushesSuppressed) }

func testPullWritesKeepPushesSuppressed(t *testing.T) {
	srv := startServer(t)
	readOnly := srv.CreateToken(t, "reader", store.Grant{Pattern: "acme/**", Level: store.LevelRead})
	dirR, dirW := t.TempDir(), t.TempDir()
	logR := newLogRecorder()
	reader := startNode(t, readOnly, Plan{Specs: []Spec{{Repo: slug, Dir: dirR, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.Logger = slog.New(logR)
	})
	startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirW, Server: srv.URL, Source: "test"}}}, nil)
	eventually(t, "the reader settled", func() bool { r, _ := reader.repoStatus(dirR); return r.LastPush != nil })
	write(t, dirR, "mine.md", "cannot be pushed\n")
	eventually(t, "pushes suppressed", func() bool { r, _ := reader.repoStatus(dirR); return r.Suppressed != "" })
	puts := reader.count.puts.Load()

	write(t, dirW, "theirs.md", "from a teammate\n")
	eventually(t, "theirs.md on the reader", fileIs(filepath.Join(dirR, "theirs.md"), "from a teammate\n"))
	eventually(t, "the reader's watcher reported the pull's writes", func() bool { return logR.count(msgOwnWrites) > 0 })
	if r, _ := reader.repoStatus(dirR); r.Suppressed == "" {
		t.Error("suppression lifted by the daemon's own pull writes, want it kept")
	}
	if got := reader.count.puts.Load(); got != puts {
		t.Errorf("reader sent %d more PUTs after its pull, want 0", got-puts)
	}
}
