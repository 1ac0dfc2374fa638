package daemon

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	memsync "github.com/teammemd/teammemd/sync"
)

// TestRefusedDeletionLiftsWhenSyncedElsewhere checks that a mass deletion
// held back, then pushed by "teammemd sync --allow-mass-delete" in another
// process, stops being reported as held back without another edit.
func TestRefusedDeletionLiftsWhenSyncedElsewhere(t *testing.T) {
	bubble(t, testRefusedDeletionLiftsWhenSyncedElsewhere)
}

func testRefusedDeletionLiftsWhenSyncedElsewhere(t *testing.T) {
	srv := startServer(t)
	dir, state := t.TempDir(), t.TempDir()
	for _, k := range []string{"MEMORY.md", "b.md", "c.md"} {
		write(t, dir, k, k+"\n")
	}
	n := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		c := &counter{next: newTransport(t)}
		o.Open = testOpener(t, srv.Token, state, c, nil)
	})
	eventually(t, "three files on the server", func() bool { return len(serverEntries(t, srv)) == 3 })
	eventually(t, "the repo idle", func() bool { r, _ := n.repoStatus(dir); return r.State == StateIdle })
	for _, k := range []string{"MEMORY.md", "b.md"} {
		if err := os.Remove(filepath.Join(dir, k)); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the deletions held back", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateHeld && strings.Contains(r.MassDeletion, "teammemd sync --allow-mass-delete --dir "+dir+" --repo "+slug) &&
			slices.Equal(r.HeldDeletions, []string{"MEMORY.md", "b.md"}) && len(r.Pending) == 0 && r.Suppressed == ""
	})

	client, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token}), memsync.WithTransport(newTransport(t)))
	if err != nil {
		t.Fatal(err)
	}
	other, err := memsync.New(memsync.Config{Dir: dir, Repo: slug, Server: srv.URL, StateDir: state, AllowMassDelete: true},
		memsync.Options{Client: client})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Sync(context.Background()); err != nil {
		t.Fatalf("Sync with AllowMassDelete = %v", err)
	}
	if got := serverEntries(t, srv); len(got) != 1 {
		t.Fatalf("server holds %d entries after the allowed deletion, want 1", len(got))
	}
	eventually(t, "the refusal lifted", func() bool {
		r, _ := n.repoStatus(dir)
		return r.MassDeletion == "" && len(r.HeldDeletions) == 0 && len(r.Pending) == 0 && r.State == StateIdle
	})
}
