package daemon

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/watch"
)

func TestOwnWritesOnly(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "pulled.md", "from the server\n")
	write(t, dir, "edited.md", "changed by the user\n")
	write(t, dir, "user.md", "never pulled\n")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := newOwnWrites(dir)
	o.note(memsync.Report{
		PulledChecksums: map[string]string{
			"pulled.md": api.EntryChecksum("from the server\n"),
			"edited.md": api.EntryChecksum("as pulled\n"),
		},
		Deleted: []string{"gone.md", "back.md"},
	})
	write(t, dir, "back.md", "recreated by the user\n")
	tests := []struct {
		name  string
		batch watch.Batch
		want  bool
	}{
		{"pulled file", watch.Batch{Paths: []string{"pulled.md"}}, true},
		{"pulled file and a directory", watch.Batch{Paths: []string{"pulled.md", "sub"}}, true},
		{"pulled deletion", watch.Batch{Paths: []string{"gone.md"}}, true},
		{"edited after the pull", watch.Batch{Paths: []string{"edited.md"}}, false},
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

// A repo whose pushes are refused keeps them stopped when its own pull
// writes a teammate's file: that is no user change.
func TestPullWritesKeepPushesSuppressed(t *testing.T) {
	srv := servertest.Start(t)
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
