package memsync

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// TestRefusedEntriesLeaveTheRestSynced: the server refuses three notes of
// one batch, one refusal at a time; each is left out and the fourth is
// pushed in the same run, whatever the number of refusals.
func TestRefusedEntriesLeaveTheRestSynced(t *testing.T) {
	big := strings.Repeat("far over the entry limit ", 10)
	tests := []struct {
		name   string
		opt    servertest.Option
		refuse string
		code   string
	}{
		{"413 entry too large", servertest.WithLimits(api.Limits{MaxEntryBytes: 100}), big, api.CodeEntryTooLarge},
		{"422 secret found", servertest.WithScanner(servertest.MarkerScanner("FORBIDDEN")), "FORBIDDEN", api.CodeSecretDetected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := servertest.Start(t, tt.opt)
			a := newPeer(t, srv.URL, srv.Token, nil)
			a.write(t, "a.md", "fine\n")
			for _, k := range []string{"b.md", "c.md", "d.md"} {
				a.write(t, k, k+" "+tt.refuse+"\n")
			}
			rep, err := a.eng.Sync(context.Background())
			if err != nil {
				t.Fatalf("Sync with three refused notes = %v, want nil: the rest pushed", err)
			}
			if got := keysOf(serverEntries(t, srv)); strings.Join(got, ",") != "a.md" {
				t.Errorf("server holds %v, want [a.md]", got)
			}
			for _, k := range []string{"b.md", "c.md", "d.md"} {
				if !skippedFor(rep, k, tt.code) {
					t.Errorf("Skipped = %+v, want %s refused with %s", rep.Skipped, k, tt.code)
				}
			}
			var refused []string
			for _, r := range rep.Refused {
				if strings.Contains(r.Reason, tt.code) {
					refused = append(refused, r.Key)
				}
			}
			if strings.Join(refused, ",") != "b.md,c.md,d.md" {
				t.Errorf("Refused = %+v, want b.md, c.md and d.md with %s", rep.Refused, tt.code)
			}
			if rep := a.sync(t); rep.PUTs != 0 || len(rep.Refused) != 3 {
				t.Errorf("next Sync sent %d PUTs and refused %+v, want none sent and the three still refused", rep.PUTs, rep.Refused)
			}
		})
	}
}

// TestClassifyAnswers checks the outcome of each answer the client can
// get, through the client itself: a 403 to a push leaves reads alone, a
// 403 to a read stops the repo.
func TestClassifyAnswers(t *testing.T) {
	tests := []struct {
		status int
		push   bool
		want   Outcome
	}{
		{http.StatusOK, false, Done},
		{dropConn, false, Unreachable},
		{http.StatusBadGateway, false, Unreachable},
		{http.StatusGatewayTimeout, true, Unreachable},
		{http.StatusInternalServerError, true, RetryLater},
		{http.StatusServiceUnavailable, false, RetryLater},
		{http.StatusInsufficientStorage, true, RetryLater},
		{http.StatusTooManyRequests, true, RetryLater},
		{http.StatusPreconditionFailed, true, RetryLater},
		{http.StatusConflict, true, RetryLater},
		{http.StatusUnauthorized, false, TokenRejected},
		{http.StatusUnauthorized, true, TokenRejected},
		{http.StatusForbidden, false, NoAccess},
		{http.StatusForbidden, true, ReadOnly},
		{http.StatusNotFound, false, NoRepo},
		{http.StatusBadRequest, true, Refused},
		{http.StatusRequestEntityTooLarge, true, Refused},
		{http.StatusUnprocessableEntity, true, Refused},
	}
	for _, tt := range tests {
		srv, _ := scriptedServer(t, tt.status)
		c, err := NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"}), WithRetry(0, time.Millisecond, time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		op := "probe"
		if tt.push {
			op = "push"
			_, err = c.Put(context.Background(), testRepo, "", []byte(`{"entries":{}}`))
		} else {
			_, err = c.Hashes(context.Background(), testRepo)
		}
		if got := Classify(err); got != tt.want {
			t.Errorf("Classify(%s answered %d: %v) = %v, want %v", op, tt.status, err, got, tt.want)
		}
	}
}

// TestClassifyErrors checks the outcome of the engine's own errors and of
// errors no answer explains, wrapped as callers wrap them.
func TestClassifyErrors(t *testing.T) {
	tooMany := api.NewError(http.StatusRequestEntityTooLarge, api.CodeTooManyEntries, "too many entries")
	redirect := &url.Error{Op: "Get", URL: "http://127.0.0.1:1/", Err: &RedirectError{From: "http://127.0.0.1:1", To: "http://127.0.0.1:2", Status: 307}}
	tests := []struct {
		name string
		err  error
		want Outcome
	}{
		{"nil", nil, Done},
		{"not a teammemd server", &NotServerError{URL: "http://127.0.0.1:1", Reason: "a page"}, WrongServer},
		{"a redirect to another origin", fmt.Errorf("pull: %w", redirect), WrongServer},
		{"team directory missing", fmt.Errorf("run: %w", &DirMissingError{Dir: "/x", Synced: 2}), DirMissing},
		{"mass deletion", &MassDeletionError{Repo: testRepo, Dir: "/x", Missing: 3, Known: 4}, DeletionsHeld},
		{"too many entries, no limit given", fmt.Errorf("push: %w", tooMany), RepoFull},
		{"an entry refused, pinned", &rejectedError{key: "a.md", err: api.NewError(http.StatusUnprocessableEntity, api.CodeSecretDetected, "secret")}, Refused},
		{"a network error", &url.Error{Op: "Get", URL: "http://127.0.0.1:1/", Err: errors.New("connection refused")}, Unreachable},
		{"a disk full", fmt.Errorf("save state: %w", syscall.ENOSPC), LocalFault},
		{"a lock timeout", context.DeadlineExceeded, LocalFault},
	}
	for _, tt := range tests {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("Classify(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestOutcomeAnswered(t *testing.T) {
	answered := map[Outcome]bool{RetryLater: true, Refused: true, RepoFull: true, ReadOnly: true, NoAccess: true, TokenRejected: true, NoRepo: true,
		LaneStopped: true}
	for o := Done; int(o) < len(outcomeNames); o++ {
		if got := o.Answered(); got != answered[o] {
			t.Errorf("%v.Answered() = %v, want %v", o, got, answered[o])
		}
	}
}

// TestOverCapFilesRefused: files over the server's entry limit are listed
// as refused, with when they are sent, and the rest is pushed.
func TestOverCapFilesRefused(t *testing.T) {
	srv := servertest.Start(t, servertest.WithLimits(api.Limits{MaxEntries: 2}))
	a := newPeer(t, srv.URL, srv.Token, nil)
	for _, k := range []string{"a.md", "b.md", "c.md"} {
		a.write(t, k, k+"\n")
	}
	rep, err := a.eng.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync over the entry limit = %v, want nil", err)
	}
	if len(rep.Refused) != 1 || rep.Refused[0].Key != "c.md" || !strings.Contains(rep.Refused[0].Reason, "once there is room") {
		t.Errorf("Refused = %+v, want c.md, sent once there is room", rep.Refused)
	}
	if got := keysOf(serverEntries(t, srv)); strings.Join(got, ",") != "a.md,b.md" {
		t.Errorf("server holds %v, want a.md and b.md", got)
	}
}
