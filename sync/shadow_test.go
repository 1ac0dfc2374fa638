package memsync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

// A local directory named like a team note, or a local note named like a
// directory of team notes, is not pushed: the server would hold both, and
// a teammate's pull could only ever write one of them, so every new
// teammate would silently lack the other.
func TestNoNoteInsideANote(t *testing.T) {
	for _, tc := range []struct {
		name, team, local string
	}{
		{"a directory named like a note", "good.md", "good.md/inner.md"},
		{"a note named like a directory", "guide.md/x.md", "guide.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := servertest.Start(t)
			a := newPeer(t, srv.URL, srv.Token, nil)
			a.write(t, tc.team, "the team's\n")
			a.sync(t)
			b := newPeer(t, srv.URL, srv.Token, nil)
			must(t, os.MkdirAll(filepath.Dir(filepath.Join(b.dir, tc.local)), 0o755))
			must(t, os.WriteFile(filepath.Join(b.dir, tc.local), []byte("mine\n"), 0o644))
			rep, err := b.eng.Sync(t.Context())
			if err != nil {
				t.Fatalf("Sync: %v", err)
			}
			if _, sent := serverEntries(t, srv)[tc.local]; sent {
				t.Errorf("the server holds %s beside %s", tc.local, tc.team)
			}
			var reason string
			for _, r := range rep.Refused {
				if r.Key == tc.local {
					reason = r.Reason
				}
			}
			if !strings.Contains(reason, "rename") {
				t.Errorf("refused = %+v, want %s refused with what to rename", rep.Refused, tc.local)
			}
			if got := b.read(t, tc.local); got != "mine\n" {
				t.Errorf("the local %s = %q, want it kept", tc.local, got)
			}
		})
	}
}
