package memsync

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// keylessProxy forwards to srv and drops details.key from every error, as
// a server that names no key in its refusals does; it counts the PUTs.
func keylessProxy(t *testing.T, srv *servertest.Server) (*httptest.Server, func() int) {
	target, _ := url.Parse(srv.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	puts := 0
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method == http.MethodPut {
			mu.Lock()
			puts++
			mu.Unlock()
		}
		if resp.StatusCode < 400 {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		var env api.ErrorEnvelope
		if json.Unmarshal(body, &env) == nil {
			delete(env.Error.Details, "key")
			body, _ = json.Marshal(env)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	ps := httptest.NewServer(rp)
	t.Cleanup(ps.Close)
	return ps, func() int { mu.Lock(); defer mu.Unlock(); return puts }
}

func TestRefusalWithoutKeyPinnedOnTheEntry(t *testing.T) {
	srv := servertest.Start(t, servertest.WithScanner(servertest.MarkerScanner("FORBIDDEN")))
	ps, puts := keylessProxy(t, srv)
	a := newPeer(t, ps.URL, srv.Token, nil)
	a.write(t, "a.md", "fine\n")
	a.write(t, "b.md", "holds FORBIDDEN text\n")
	a.write(t, "c.md", "also fine\n")
	rep, err := a.eng.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync with a server-refused file = %v, want the other files pushed", err)
	}
	if got := serverEntries(t, srv); len(got) != 2 || got["a.md"] == "" || got["c.md"] == "" {
		t.Errorf("server holds %v, want a.md and c.md", keysOf(got))
	}
	if !skippedFor(rep, "b.md", api.CodeSecretDetected) {
		t.Errorf("Skipped = %+v, want b.md refused with %s", rep.Skipped, api.CodeSecretDetected)
	}
	before := puts()
	if rep := a.sync(t); rep.PUTs != 0 || !skippedFor(rep, "b.md", api.CodeSecretDetected) {
		t.Errorf("next Sync = %d PUTs, skipped %+v; want none sent and b.md still reported", rep.PUTs, rep.Skipped)
	}
	if n := puts() - before; n != 0 {
		t.Errorf("next Sync sent %d PUTs, want 0 until b.md changes", n)
	}
	a.write(t, "b.md", "cleaned up\n")
	if rep := a.sync(t); len(rep.Pushed) != 1 || rep.Pushed[0] != "b.md" {
		t.Errorf("Sync after b.md changed pushed %v, want b.md", rep.Pushed)
	}
}

func skippedFor(rep Report, key, reason string) bool {
	for _, s := range rep.Skipped {
		if s.Key == key && strings.Contains(s.Reason, reason) {
			return true
		}
	}
	return false
}

func TestPreconditionFailedGivesUpAfterTwoMoreRounds(t *testing.T) {
	srv := servertest.Start(t)
	other := testClient(t, srv.URL, srv.Token)
	target, _ := url.Parse(srv.URL)
	puts := 0
	// Every PUT races a teammate's write that lands first.
	ps := httptest.NewServer(racingHandler(httputil.NewSingleHostReverseProxy(target), func() {
		puts++
		body := fmt.Appendf(nil, `{"entries":{"teammate%d.md":"x"}}`, puts)
		if _, err := other.Put(context.Background(), testRepo, "", body); err != nil {
			t.Errorf("teammate Put: %v", err)
		}
	}))
	t.Cleanup(ps.Close)
	a := newPeer(t, ps.URL, srv.Token, nil)
	a.write(t, "mine.md", "mine\n")
	_, err := a.eng.Sync(context.Background())
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusPreconditionFailed {
		t.Fatalf("Sync against a repo that always changes first = %v, want a 412", err)
	}
	if puts != 3 {
		t.Errorf("sent %d PUTs, want 3 (the first and two more rounds)", puts)
	}
	if _, ok := serverEntries(t, srv)["mine.md"]; ok {
		t.Error("mine.md reached the server through a 412")
	}
}

// racingHandler runs before ahead of every PUT that next serves, one
// request at a time.
func racingHandler(next http.Handler, before func()) http.Handler {
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			mu.Lock()
			defer mu.Unlock()
			before()
		}
		next.ServeHTTP(w, r)
	})
}

func TestTombstoneKeepsLocalEdit(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "x.md", "v1\n")
	a.write(t, "y.md", "y\n")
	for _, k := range []string{"v.md", "w.md", "z.md"} {
		a.write(t, k, k+"\n")
	}
	a.sync(t)
	b.sync(t)
	for _, k := range []string{"x.md", "y.md"} {
		if err := os.Remove(filepath.Join(a.dir, k)); err != nil {
			t.Fatal(err)
		}
	}
	if rep := a.sync(t); len(rep.SoftDeleted) != 2 {
		t.Fatalf("delete Sync soft-deleted %v, want x.md and y.md", rep.SoftDeleted)
	}
	b.write(t, "x.md", "edited by b\n")
	rep := b.sync(t)
	if got := b.read(t, "x.md"); got != "edited by b\n" {
		t.Errorf("x.md = %q after a teammate deleted it, want b's unpushed edit kept", got)
	}
	if got := b.read(t, "y.md"); got != "<missing>" {
		t.Errorf("y.md = %q, want it deleted (unchanged since the last sync)", got)
	}
	if len(rep.Deleted) != 1 || rep.Deleted[0] != "y.md" {
		t.Errorf("Deleted = %v, want [y.md]", rep.Deleted)
	}
	if got := serverEntries(t, srv)["x.md"]; got != "edited by b\n" {
		t.Errorf("server x.md = %q, want b's edit pushed back", got)
	}
}
