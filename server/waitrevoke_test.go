package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// revoke revokes the tokens of subject, as teammemd token revoke does, and
// returns once a new request with token is refused (auth.CacheTTL at
// most after the revocation watch sees it).
func revoke(t *testing.T, s *servertest.Server, subject, token string) {
	t.Helper()
	ctx := context.Background()
	toks, err := s.Store.ListTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		if tok.Subject == subject {
			if err := s.Store.RevokeToken(ctx, tok.ID, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 300 {
		if r := do(t, s.URL, req{repo: "other/app", token: token}); r.status == http.StatusUnauthorized {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("a request with the revoked token of %s is still admitted", subject)
}

// TestWaitOfARevokedTokenRefused parks a change wait, revokes its token and
// then writes: the wait answers 401, as a new request with the token
// would, never the write.
func TestWaitOfARevokedTokenRefused(t *testing.T) {
	for name, body := range map[string]string{"parked": "", "held by its handler": "."} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := servertest.Start(t)
			first := put(t, s, repo, map[string]string{"a.md": "a"})
			reader := s.CreateToken(t, "reader", store.Grant{Pattern: "acme/*", Level: store.LevelRead})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			t.Cleanup(cancel)
			got := make(chan reply, 1)
			go func() {
				got <- doCtx(t, ctx, s.URL, req{query: memQuery(repo, "view", "hashes", "wait", "60", "delta", "1"), token: reader,
					body: body, headers: map[string]string{"If-None-Match": api.ETag(first.Checksum)}})
			}()
			awaitWaiters(t, s, 1)
			revoke(t, s, "reader", reader)
			second := put(t, s, repo, map[string]string{"b.md": "secret plan"})
			r := <-got
			if r.status != http.StatusUnauthorized || r.errorCode() != api.CodeUnauthenticated {
				t.Fatalf("wait of a revoked token, woken = %d %s, want 401 %s", r.status, r.body, api.CodeUnauthenticated)
			}
			if b := string(r.body); strings.Contains(b, second.Checksum) || strings.Contains(b, "secret plan") || strings.Contains(b, "b.md") {
				t.Errorf("401 body = %s, want nothing of the write", b)
			}
			if r.header.Get("WWW-Authenticate") == "" {
				t.Errorf("401 headers = %v, want WWW-Authenticate", r.header)
			}
			awaitWaiters(t, s, 0)
		})
	}
}

// TestTimedOutWaitOfARevokedTokenRefused lets a wait of a revoked token
// run out: it answers 401, not 304 with the repo's checksum.
func TestTimedOutWaitOfARevokedTokenRefused(t *testing.T) {
	t.Parallel()
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	reader := s.CreateToken(t, "reader", store.Grant{Pattern: "acme/*", Level: store.LevelRead})
	conn := dialWait(t, s, strings.Replace(waitRequest(s, first.Checksum, "10"), s.Token, reader, 1))
	awaitWaiters(t, s, 1)
	revoke(t, s, "reader", reader)
	resp, body := readAnswer(t, conn)
	if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(body), first.Checksum) {
		t.Errorf("timed-out wait of a revoked token = %d %s, want 401", resp.StatusCode, body)
	}
}

// TestProposalWaitOfARevokedTokenRefused holds a wait on a repo's
// proposals, revokes the reviewer's token and proposes: the wait answers
// 401, not the list.
func TestProposalWaitOfARevokedTokenRefused(t *testing.T) {
	t.Parallel()
	s := startReviewed(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	got := make(chan reply, 1)
	go func() {
		got <- doCtx(t, ctx, s.URL, req{path: api.ProposalsPath, query: memQuery(repo, "wait", "60", "after", "0"), token: s.carol})
	}()
	awaitWaiters(t, s.Server, 1)
	revoke(t, s.Server, "carol", s.carol)
	s.propose(t, s.alice, map[string]string{"deploy.md": "port 8080"})
	if r := <-got; r.status != http.StatusUnauthorized || strings.Contains(string(r.body), "alice") {
		t.Errorf("proposal wait of a revoked token = %d %s, want 401", r.status, r.body)
	}
}
