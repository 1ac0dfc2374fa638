package memsync

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

func TestLoadProvenance(t *testing.T) {
	sum := api.EntryChecksum("a")
	good := `{"format":1,"repo":"acme/app","server":"h:1","checksum":"` + sum + `","version":2,"complete":true,"keys":{` +
		`"a.md":{"version":2,"subject":"ann","time":"2026-01-02T03:04:05Z","checksum":"` + sum + `"},` +
		`"b.md":{"version":1,"subject":"bob","time":"2026-01-02T03:04:05Z","deleted":true}}}`
	tests := []struct {
		name, data string
		wantErr    bool
	}{
		{"good", good, false},
		{"no keys", `{"format":1,"repo":"acme/app","server":"h:1","checksum":"` + sum + `","version":0,"complete":true}`, false},
		{"unknown field", strings.Replace(good, `"complete"`, `"extra":1,"complete"`, 1), true},
		{"trailing data", good + " {}", true},
		{"other format", strings.Replace(good, `"format":1`, `"format":2`, 1), true},
		{"bad repo", strings.Replace(good, `"acme/app"`, `"acme"`, 1), true},
		{"bad repo checksum", strings.Replace(good, `"checksum":"`+sum+`","version":2`, `"checksum":"sha256:00","version":2`, 1), true},
		{"bad key", strings.Replace(good, `"a.md"`, `"../a.md"`, 1), true},
		{"deletion with a checksum", strings.Replace(good, `"deleted":true`, `"deleted":true,"checksum":"`+sum+`"`, 1), true},
		{"write without a checksum", strings.Replace(good, `,"checksum":"`+sum+`"}`, `}`, 1), true},
		{"no time", strings.Replace(good, `"subject":"bob","time":"2026-01-02T03:04:05Z"`, `"subject":"bob"`, 1), true},
		{"not JSON", `{"format":1,`, true},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), provenanceFile)
		must(t, os.WriteFile(path, []byte(tt.data), 0o600))
		p, err := LoadProvenance(path)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: LoadProvenance() error = %v, want error %v", tt.name, err, tt.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("%s: LoadProvenance() error = %v, want it to name %s", tt.name, err, path)
		}
		if err == nil && p.Keys == nil {
			t.Errorf("%s: LoadProvenance() keys = nil, want a map", tt.name)
		}
	}
	if _, err := LoadProvenance(filepath.Join(t.TempDir(), "none.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadProvenance(missing) error = %v, want fs.ErrNotExist", err)
	}
}

func FuzzDecodeProvenance(f *testing.F) {
	good, _ := json.Marshal(Provenance{Format: provenanceFormat, Repo: "acme/app", Server: "h", Checksum: api.EmptyRepoChecksum,
		Keys: map[string]Change{"a.md": {Version: 1, Subject: "ann", Time: time.Unix(1, 0), Checksum: api.EntryChecksum("a")}}})
	f.Add(good)
	f.Add([]byte(`{"format":1,"keys":{"../x":{"version":1}}}`))
	f.Add([]byte(`{"format":1} trailing`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := decodeProvenance(data)
		if err != nil {
			return
		}
		for k, c := range p.Keys {
			if c.check(k) != nil {
				t.Fatalf("decodeProvenance accepted key %q change %+v", k, c)
			}
		}
	})
}

// TestProvenancePath: the provenance file sits next to the state file
// the engine keeps for the same repo and server URL.
func TestProvenancePath(t *testing.T) {
	for _, server := range []string{"http://127.0.0.1:8787", "https://[::1]:8443/", "https://teammemd.example.com/prefix"} {
		state, dir := t.TempDir(), t.TempDir()
		eng, err := New(Config{Dir: dir, Repo: testRepo, Server: server, StateDir: state},
			Options{Client: testClient(t, server, "tok")})
		must(t, err)
		got, err := ProvenancePath(state, testRepo, server, dir)
		if want := filepath.Join(filepath.Dir(eng.StatePath()), "provenance.json"); err != nil || got != want {
			t.Errorf("ProvenancePath(%s) = %q, %v, want %q", server, got, err, want)
		}
	}
	if _, err := ProvenancePath(t.TempDir(), testRepo, "ftp://x", t.TempDir()); err == nil {
		t.Error("ProvenancePath(ftp://x) error = nil, want one")
	}
}

// historyCounter counts the history requests through a transport, and
// keeps the limit of the first one since reset.
type historyCounter struct {
	n          atomic.Int64
	firstLimit atomic.Value // string
}

// reset forgets the first limit.
func (c *historyCounter) reset() { c.firstLimit.Store("") }

func (c *historyCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasSuffix(req.URL.Path, api.HistoryPath) {
		c.n.Add(1)
		c.firstLimit.CompareAndSwap("", req.URL.Query().Get(api.ParamLimit))
		if req.URL.Query().Get(api.ParamContent) != "false" {
			return nil, errors.New("history asked with content")
		}
	}
	return http.DefaultTransport.RoundTrip(req)
}

// provenancePeer is a peer whose history requests are counted, with an
// instance as the daemon has.
func provenancePeer(t *testing.T, srv *servertest.Server, token string) (*peer, *historyCounter) {
	t.Helper()
	c := &historyCounter{}
	c.reset()
	client, err := NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}), WithTransport(c), WithRetry(0, time.Millisecond, time.Millisecond), WithInstance())
	must(t, err)
	p := &peer{dir: filepath.Join(t.TempDir(), "team"), state: t.TempDir()}
	p.eng, err = New(Config{Dir: p.dir, Repo: testRepo, Server: srv.URL, StateDir: p.state}, Options{Client: client})
	must(t, err)
	return p, c
}

// syncedProvenancePeer is a provenancePeer that synced a.md, "one".
func syncedProvenancePeer(t *testing.T, srv *servertest.Server) (*peer, *historyCounter) {
	t.Helper()
	p, history := provenancePeer(t, srv, srv.Token)
	must(t, os.MkdirAll(p.dir, 0o755))
	p.write(t, "a.md", "one")
	p.sync(t)
	return p, history
}

// refreshedProvenancePeer is a syncedProvenancePeer on a server of its
// own that refreshed its record, with the record's path.
func refreshedProvenancePeer(t *testing.T) (*servertest.Server, *peer, *historyCounter, string) {
	t.Helper()
	srv := servertest.Start(t)
	p, history := syncedProvenancePeer(t, srv)
	must(t, p.eng.RefreshProvenance(context.Background()))
	path, err := ProvenancePath(p.state, testRepo, p.eng.cfg.Server, p.eng.cfg.Dir)
	must(t, err)
	return srv, p, history, path
}

func loadProvenance(t *testing.T, p *peer) *Provenance {
	t.Helper()
	path, err := ProvenancePath(p.state, testRepo, p.eng.cfg.Server, p.eng.cfg.Dir)
	must(t, err)
	prov, err := LoadProvenance(path)
	must(t, err)
	return prov
}

// TestRefreshProvenance: the record names who last wrote or deleted each
// key, with the checksum written, from the history of two teammates'
// pushes; a refresh for an unchanged repo asks the server nothing.
func TestRefreshProvenance(t *testing.T) {
	srv := servertest.Start(t)
	grant := store.Grant{Pattern: "**", Level: store.LevelWrite}
	ann, annHistory := provenancePeer(t, srv, srv.CreateToken(t, "ann", grant))
	bob := newPeer(t, srv.URL, srv.CreateToken(t, "bob", grant), nil)
	ann.write(t, "a.md", "a by ann")
	ann.write(t, "gone.md", "soon gone")
	ann.sync(t)
	bob.sync(t)
	bob.write(t, "b.md", "b by bob")
	must(t, os.Remove(filepath.Join(bob.dir, "gone.md")))
	bob.sync(t)
	ann.sync(t)
	ctx := context.Background()
	must(t, ann.eng.RefreshProvenance(ctx))
	got := loadProvenance(t, ann)
	want := map[string]string{"a.md": "ann " + api.EntryChecksum("a by ann"), "b.md": "bob " + api.EntryChecksum("b by bob"), "gone.md": "bob deleted"}
	if len(got.Keys) != len(want) || !got.Complete || got.Checksum != ann.eng.Checksum() {
		t.Fatalf("provenance = %+v, want %d keys, complete, for checksum %s", got, len(want), ann.eng.Checksum())
	}
	for k, w := range want {
		c := got.Keys[k]
		g := c.Subject + " " + c.Checksum
		if c.Deleted {
			g = c.Subject + " deleted"
		}
		if g != w || c.Time.IsZero() {
			t.Errorf("provenance of %s = %+v, want %s at a time", k, c, w)
		}
	}
	before := annHistory.n.Load()
	must(t, ann.eng.RefreshProvenance(ctx))
	if n := annHistory.n.Load() - before; n != 0 {
		t.Errorf("refresh of an unchanged repo sent %d history requests, want 0", n)
	}
}

// TestRefreshProvenanceCarriesOn: a refresh after one more write reads
// one page of history, of three revisions (one for the version and one for
// the key changed since the record, and one more), and keeps, from the
// record before it, the key whose only revision lies pages below; after a
// write of three keys at one version, one page of five reaches the
// record's version.
func TestRefreshProvenanceCarriesOn(t *testing.T) {
	srv := servertest.Start(t)
	ctx := context.Background()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	apply := func(entries map[string]string) {
		_, err := srv.Store.Apply(ctx, store.Write{Repo: testRepo, Entries: entries, Subject: "ann", Time: at})
		must(t, err)
	}
	apply(map[string]string{"old.md": "old"})
	for i := range historyPageSize + 10 {
		apply(map[string]string{"busy.md": strings.Repeat("x", i+1)})
	}
	p, history := provenancePeer(t, srv, srv.Token)
	must(t, os.MkdirAll(p.dir, 0o755))
	p.sync(t)
	must(t, p.eng.RefreshProvenance(ctx))
	if n := history.n.Load(); n != 2 {
		t.Errorf("first refresh sent %d history requests, want 2", n)
	}
	apply(map[string]string{"busy.md": "last"})
	p.sync(t)
	history.reset()
	must(t, p.eng.RefreshProvenance(ctx))
	if n, limit := history.n.Load(), history.firstLimit.Load(); n != 3 || limit != "3" {
		t.Errorf("refresh after one write sent %d history requests in all, the first of limit %s, want 3, limit 3", n, limit)
	}
	got := loadProvenance(t, p)
	if c := got.Keys["old.md"]; c.Version != 1 || c.Checksum != api.EntryChecksum("old") || c.Subject != "ann" {
		t.Errorf("provenance of old.md = %+v, want version 1 by ann", c)
	}
	if c := got.Keys["busy.md"]; c.Checksum != api.EntryChecksum("last") || c.Version != got.Version {
		t.Errorf("provenance of busy.md = %+v, want the last write, version %d", c, got.Version)
	}
	three := map[string]string{"busy.md": "three", "x.md": "x", "y.md": "y"}
	apply(three)
	p.sync(t)
	history.reset()
	before := history.n.Load()
	must(t, p.eng.RefreshProvenance(ctx))
	if n, limit := history.n.Load()-before, history.firstLimit.Load(); n != 1 || limit != "5" {
		t.Errorf("refresh after a write of three keys sent %d history requests, the first of limit %s, want 1 of limit 5", n, limit)
	}
	got = loadProvenance(t, p)
	for k, v := range three {
		if c := got.Keys[k]; c.Checksum != api.EntryChecksum(v) || c.Version != got.Version {
			t.Errorf("provenance of %s after a write of three keys = %+v, want %q at version %d", k, c, v, got.Version)
		}
	}
	if c := got.Keys["old.md"]; c.Version != 1 || !got.Complete {
		t.Errorf("provenance of old.md after a write of three keys = %+v (complete %v), want version 1, complete", c, got.Complete)
	}
}

// teammateWrites writes key as a teammate does: the daemon's next sync
// pulls it, and its next refresh reads the history.
func teammateWrites(t *testing.T, srv *servertest.Server, key, value string) {
	t.Helper()
	_, err := srv.Store.Apply(context.Background(), store.Write{Repo: testRepo, Entries: map[string]string{key: value}, Subject: "bob", Time: time.Now()})
	must(t, err)
}

// TestRefreshProvenanceFailureKeepsFile: a refresh that cannot reach the
// server fails and leaves the record it made before.
func TestRefreshProvenanceFailureKeepsFile(t *testing.T) {
	ctx := context.Background()
	srv, p, _, path := refreshedProvenancePeer(t)
	before, err := os.ReadFile(path)
	must(t, err)
	teammateWrites(t, srv, "a.md", "two")
	p.sync(t)
	srv.Stop()
	if err := p.eng.RefreshProvenance(ctx); err == nil {
		t.Fatal("RefreshProvenance() with the server stopped = nil, want an error")
	}
	if after, err := os.ReadFile(path); err != nil || string(after) != string(before) {
		t.Errorf("provenance after a failed refresh = %s, %v; want the old record", after, err)
	}
}

// TestRefreshProvenanceReadsTheEnginesState: the refresh after a run
// takes the state the run saved from the engine, not from the file: it
// makes the record for the engine's checksum with the file unreadable.
func TestRefreshProvenanceReadsTheEnginesState(t *testing.T) {
	srv := servertest.Start(t)
	p, history := syncedProvenancePeer(t, srv)
	statePath := filepath.Join(repoStateDir(p.state, testRepo, p.eng.remote.Host()), stateFile)
	must(t, os.WriteFile(statePath, []byte("not a state"), 0o600))
	if err := p.eng.RefreshProvenance(context.Background()); err != nil || history.n.Load() == 0 {
		t.Fatalf("RefreshProvenance() = %v after %d history requests, want nil after some", err, history.n.Load())
	}
	got := loadProvenance(t, p)
	if got.Checksum != p.eng.Checksum() || got.Keys["a.md"].Checksum != api.EntryChecksum("one") {
		t.Errorf("provenance = %+v, want a.md at checksum %s", got, p.eng.Checksum())
	}
}

// TestRefreshProvenanceAfterACrash: the record is written without an
// fsync, so a crash may leave it empty, or take it back to an older
// record; the engine that starts next (which the daemon has refresh once)
// makes it again for the state.
func TestRefreshProvenanceAfterACrash(t *testing.T) {
	ctx := context.Background()
	_, p, _, path := refreshedProvenancePeer(t)
	older, err := os.ReadFile(path)
	must(t, err)
	p.write(t, "a.md", "two")
	p.sync(t)
	for _, left := range [][]byte{nil, older} {
		must(t, os.WriteFile(path, left, 0o600))
		next, err := New(p.eng.cfg, Options{Client: p.eng.client})
		must(t, err)
		must(t, next.RefreshProvenance(ctx))
		if got := loadProvenance(t, p); got.Checksum != p.eng.Checksum() || got.Keys["a.md"].Checksum != api.EntryChecksum("two") {
			t.Errorf("record after a restart over %d bytes left = %+v, want a.md at %s", len(left), got, api.EntryChecksum("two"))
		}
	}
}

// TestRefreshProvenanceNeverSynced: a repo without state has no record to
// make and asks the server nothing.
func TestRefreshProvenanceNeverSynced(t *testing.T) {
	srv := servertest.Start(t)
	p, history := provenancePeer(t, srv, srv.Token)
	if err := p.eng.RefreshProvenance(context.Background()); err != nil || history.n.Load() != 0 {
		t.Errorf("RefreshProvenance(never synced) = %v after %d requests, want nil after 0", err, history.n.Load())
	}
	path, err := ProvenancePath(p.state, testRepo, srv.URL, p.eng.cfg.Dir)
	must(t, err)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("provenance file of a repo never synced: stat = %v, want none", err)
	}
}

// TestRefreshProvenanceKeepsItsRecord: a refresh after a teammate's write
// carries on from the record the engine last wrote while its file keeps
// its stamp, without
// decoding the file (here overwritten in place by garbage of the same size
// and time), and reads a file whose stamp moved, a corrupt one then
// counting as no record.
func TestRefreshProvenanceKeepsItsRecord(t *testing.T) {
	ctx := context.Background()
	srv, p, history, path := refreshedProvenancePeer(t)
	garble := func(sameStamp bool) {
		t.Helper()
		fi, err := os.Stat(path)
		must(t, err)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		must(t, err)
		_, err = f.Write(bytes.Repeat([]byte("x"), int(fi.Size())))
		must(t, errors.Join(err, f.Close()))
		if sameStamp {
			must(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))
		} else {
			must(t, os.Chtimes(path, fi.ModTime().Add(time.Second), fi.ModTime().Add(time.Second)))
		}
	}
	for _, tc := range []struct {
		sameStamp bool
		limit     string
	}{{true, "3"}, {false, fmt.Sprint(historyPageSize)}} {
		garble(tc.sameStamp)
		teammateWrites(t, srv, "a.md", fmt.Sprint("edit, same stamp ", tc.sameStamp))
		p.sync(t)
		history.reset()
		must(t, p.eng.RefreshProvenance(ctx))
		if got := history.firstLimit.Load(); got != tc.limit {
			t.Errorf("refresh after a write, the file garbled with its stamp kept %v: first history page of %v, want %s", tc.sameStamp, got, tc.limit)
		}
		if got := loadProvenance(t, p); got.Keys["a.md"].Version != got.Version || !got.Complete {
			t.Errorf("record after the refresh = %+v, want a.md at version %d, complete", got.Keys["a.md"], got.Version)
		}
	}
}

// TestRefreshProvenanceAfterOwnPushes: after a push of the daemon's own,
// in one PUT or in several, the record is carried over the revisions the
// PUTs' answers named, without a history request, and is the record a
// walk of the history makes; after a teammate's write it reads the history
// again.
func TestRefreshProvenanceAfterOwnPushes(t *testing.T) {
	_, ann, history, bob := annAndBob(t, map[string]string{"a.md": "one", "gone.md": "soon gone"})
	ctx := context.Background()
	big := strings.Repeat("b", 90<<10)
	steps := []struct {
		name  string
		edit  func()
		reads bool
	}{
		{"an edit and a deletion", func() {
			ann.write(t, "a.md", "two")
			must(t, os.Remove(filepath.Join(ann.dir, "gone.md")))
		}, false},
		{"three large notes, in two PUTs", func() {
			for _, k := range []string{"x.md", "y.md", "z.md"} {
				ann.write(t, k, k+big)
			}
		}, false},
		{"a teammate's note, then an edit", func() {
			bob.write(t, "bob.md", "by bob")
			bob.sync(t)
			ann.write(t, "a.md", "three")
		}, true},
	}
	for _, step := range steps {
		step.edit()
		puts := ann.sync(t).PUTs
		before := history.n.Load()
		must(t, ann.eng.RefreshProvenance(ctx))
		if n := history.n.Load() - before; (n > 0) != step.reads {
			t.Errorf("%s (%d PUTs): refresh sent %d history requests, want some: %v", step.name, puts, n, step.reads)
		}
		if got, walked := recordAndWalk(t, ann); !reflect.DeepEqual(got, walked) {
			t.Errorf("%s: record = %+v, want the history's %+v", step.name, got, walked)
		}
	}
}

// TestRefreshProvenanceAfterTeammatesSave: a teammate's save that the
// change wait's answer names (its one write since the daemon's checksum)
// carries the record on without a history request, to the record a walk
// makes; an answer that does not name it leaves the refresh to the
// history.
func TestRefreshProvenanceAfterTeammatesSave(t *testing.T) {
	srv, ann, history, bob := annAndBob(t, map[string]string{"a.md": "one"})
	bob.sync(t)
	ctx := context.Background()
	waiter := testClient(t, srv.URL, srv.Token)
	for _, named := range []bool{true, false} {
		h := waitForPush(t, srv, waiter, bob, map[string]string{"b.md": fmt.Sprint("by bob, named ", named)})
		if h.Written == nil || h.Written.Subject != "bob" {
			t.Fatalf("the wait's answer names %+v, want bob's write", h.Written)
		}
		if !named {
			h.Written = nil
		}
		_, err := ann.eng.PullChanged(ctx, h)
		must(t, err)
		before := history.n.Load()
		must(t, ann.eng.RefreshProvenance(ctx))
		if n := history.n.Load() - before; (n == 0) != named {
			t.Errorf("answer naming the write %v: refresh sent %d history requests", named, n)
		}
		if got, walked := recordAndWalk(t, ann); !reflect.DeepEqual(got, walked) || got.Keys["b.md"].Subject != "bob" {
			t.Errorf("answer naming the write %v: record = %+v, want the history's %+v, b.md by bob", named, got, walked)
		}
	}
}

// annAndBob starts a server, ann, a provenancePeer that synced notes and
// made her record, and bob, a teammate.
func annAndBob(t *testing.T, notes map[string]string) (*servertest.Server, *peer, *historyCounter, *peer) {
	t.Helper()
	srv := servertest.Start(t)
	grant := store.Grant{Pattern: "**", Level: store.LevelWrite}
	ann, history := provenancePeer(t, srv, srv.CreateToken(t, "ann", grant))
	bob := newPeer(t, srv.URL, srv.CreateToken(t, "bob", grant), nil)
	must(t, os.MkdirAll(ann.dir, 0o755))
	for k, v := range notes {
		ann.write(t, k, v)
	}
	ann.sync(t)
	must(t, ann.eng.RefreshProvenance(context.Background()))
	return srv, ann, history, bob
}

// recordAndWalk returns p's record, then the record a walk of the whole
// history makes with the file gone.
func recordAndWalk(t *testing.T, p *peer) (got, walked *Provenance) {
	t.Helper()
	got = loadProvenance(t, p)
	path, err := ProvenancePath(p.state, testRepo, p.eng.cfg.Server, p.eng.cfg.Dir)
	must(t, err)
	must(t, os.Remove(path))
	must(t, p.eng.RefreshProvenance(context.Background()))
	return got, loadProvenance(t, p)
}
