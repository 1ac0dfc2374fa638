package memsync

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/servertest"
)

// conflicted returns a server and a peer b whose unpushed edit of n.md
// lost to a's: b's team directory holds a's version, and b has one
// conflict copy of its own, "b's edit\n".
func conflicted(t *testing.T, scanner SecretScanner) (*servertest.Server, *peer, Conflict) {
	t.Helper()
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, scanner)
	a.write(t, "n.md", "base\n")
	a.write(t, "other.md", "other\n")
	a.sync(t)
	b.sync(t)
	a.write(t, "n.md", "a's edit\n")
	a.sync(t)
	b.write(t, "n.md", "b's edit\n")
	rep := b.sync(t)
	if len(rep.Conflicts) != 1 || b.read(t, "n.md") != "a's edit\n" {
		t.Fatalf("b's sync = %+v, n.md %q; want a conflict copy and a's edit", rep.Conflicts, b.read(t, "n.md"))
	}
	return srv, b, rep.Conflicts[0]
}

// resolutions reads the peer's resolution log.
func resolutions(t *testing.T, p *peer) []Resolution {
	t.Helper()
	f, err := os.Open(filepath.Join(filepath.Dir(p.eng.StatePath()), ResolvedLogName))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Resolution
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r Resolution
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("resolution log line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

func TestResolve(t *testing.T) {
	merged := filepath.Join(t.TempDir(), "merged.md")
	tests := []struct {
		keep, kept string
		content    string // what is kept, for KeepLocal and KeepFile
		want       string // n.md on the server and in the team directory after
	}{
		{KeepServer, KeepServer, "", "a's edit\n"},
		{KeepLocal, KeepLocal, "b's edit\n", "b's edit\n"},
		{KeepFile, merged, "a's and b's edits\n", "a's and b's edits\n"},
	}
	for _, tt := range tests {
		t.Run(tt.keep, func(t *testing.T) {
			srv, b, c := conflicted(t, nil)
			rep, err := b.eng.Resolve(context.Background(), c, tt.keep, tt.kept, []byte(tt.content))
			if err != nil {
				t.Fatalf("Resolve(%s) error = %v", tt.keep, err)
			}
			if got := b.read(t, "n.md"); got != tt.want {
				t.Errorf("Resolve(%s): n.md = %q, want %q", tt.keep, got, tt.want)
			}
			if got := serverEntries(t, srv)["n.md"]; got != tt.want {
				t.Errorf("Resolve(%s): server n.md = %q, want %q", tt.keep, got, tt.want)
			}
			if tt.keep == KeepServer && rep.PUTs != 0 {
				t.Errorf("Resolve(%s) sent %d PUTs, want none", tt.keep, rep.PUTs)
			}
			if _, err := os.Stat(c.Path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Resolve(%s): copy %s still there (%v)", tt.keep, c.Path, err)
			}
			if left, _ := b.eng.Conflicts(); len(left) != 0 {
				t.Errorf("Resolve(%s): Conflicts() = %+v, want none", tt.keep, left)
			}
			log := resolutions(t, b)
			if len(log) != 1 || log[0].Key != "n.md" || log[0].Kept != tt.kept || log[0].Copy != c.Path || log[0].Time.IsZero() {
				t.Errorf("Resolve(%s): log = %+v, want one line: n.md kept %s copy %s", tt.keep, log, tt.kept, c.Path)
			}
			if _, err := b.eng.Resolve(context.Background(), c, tt.keep, tt.kept, []byte(tt.content)); err == nil {
				t.Errorf("Resolve(%s) again = nil, want an error: no such copy", tt.keep)
			}
		})
	}
}

// TestResolveSecretKeepsCopy: a kept content the scanner blocks is not
// pushed, and the copy and its record stay.
func TestResolveSecretKeepsCopy(t *testing.T) {
	srv, b, c := conflicted(t, realScanner(t))
	leak := scantest.AWSNote(scantest.AWSKey())
	_, err := b.eng.Resolve(context.Background(), c, KeepFile, "merged.md", []byte(leak))
	var np *NotPushedError
	if !errors.As(err, &np) {
		t.Fatalf("Resolve(a secret) error = %v, want *NotPushedError", err)
	}
	if got := serverEntries(t, srv)["n.md"]; got != "a's edit\n" {
		t.Errorf("server n.md = %q, want a's edit", got)
	}
	if _, err := os.Stat(c.Path); err != nil {
		t.Errorf("copy %s: %v, want it kept", c.Path, err)
	}
	if left, _ := b.eng.Conflicts(); len(left) != 1 {
		t.Errorf("Conflicts() = %+v, want the copy still recorded", left)
	}
	if log := resolutions(t, b); len(log) != 0 {
		t.Errorf("log = %+v, want nothing logged", log)
	}
}

// Keeping the server's version after a kept file was held back (a secret
// in it) puts the server's version in the team directory, as asked, and
// keeps the version held back, which is on no server, as a conflict copy
// of its own: nothing is pushed and nothing local is lost.
func TestResolveServerAfterAHeldFile(t *testing.T) {
	srv, b, c := conflicted(t, realScanner(t))
	leak := scantest.AWSNote(scantest.AWSKey())
	if _, err := b.eng.Resolve(context.Background(), c, KeepFile, "merged.md", []byte(leak)); err == nil {
		t.Fatal("Resolve(a secret) = nil error, want it held back")
	}
	rep, err := b.eng.Resolve(context.Background(), c, KeepServer, KeepServer, nil)
	if err != nil {
		t.Fatalf("Resolve(server) error = %v", err)
	}
	if got := b.read(t, "n.md"); got != "a's edit\n" {
		t.Errorf("n.md after keeping the server's version = %q, want the server's", got)
	}
	if got := serverEntries(t, srv)["n.md"]; got != "a's edit\n" {
		t.Errorf("server n.md = %q, want a's edit", got)
	}
	if _, err := os.Stat(c.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the settled copy %s: %v, want it removed", c.Path, err)
	}
	left, _ := b.eng.Conflicts()
	if len(left) != 1 || len(rep.Conflicts) != 1 || left[0].Path == c.Path {
		t.Fatalf("conflicts after = %+v (report %+v), want one new copy of the version held back", left, rep.Conflicts)
	}
	if data, err := os.ReadFile(left[0].Path); err != nil || string(data) != leak {
		t.Errorf("the new copy holds %q, %v, want the version held back", data, err)
	}
	b.sync(t)
	if got := serverEntries(t, srv)["n.md"]; got != "a's edit\n" {
		t.Errorf("server n.md after the next sync = %q, want a's edit still", got)
	}
}

// TestResolveRedactedCopy: a copy kept under a redacted key can only be
// settled by keeping the server's version.
func TestResolveRedactedCopy(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	path := filepath.Join(a.state, "copy.md")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := Conflict{Key: "cred-redacted-1f0a9c3b7d2e", Path: path, Source: "local"}
	if _, err := a.eng.Resolve(context.Background(), c, KeepLocal, KeepLocal, []byte("x")); err == nil {
		t.Errorf("Resolve(redacted copy, local) = nil, want an error")
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("copy: %v, want it untouched", err)
	}
}
