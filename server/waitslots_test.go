package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// startCall runs one request in the background; its answer arrives on the
// returned channel.
func startCall(s *Server, token, method, target, body string, headers ...string) <-chan *httptest.ResponseRecorder {
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- call(s, token, method, target, body, headers...) }()
	return done
}

// addToken stores a token for subject with one grant and returns its secret.
func addToken(t *testing.T, s *Server, subject string, g store.Grant) string {
	t.Helper()
	secret, rec, err := auth.NewTokenRecord(subject, []store.Grant{g}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Store.(store.Tokens).CreateToken(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	return secret
}

// TestWaitersPerSubject holds one subject at its cap of change waits: its
// next wait is refused at once with 429 and Retry-After, while a wait of
// another subject is still held and answered when the repo changes.
func TestWaitersPerSubject(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, tok := newInternal(t, Config{MaxWaitersPerSubject: 2}, Options{})
		reader := addToken(t, s, "reader", store.Grant{Pattern: "**", Level: store.LevelRead})
		wait := target + "&view=hashes&wait=60"
		inm := `"` + api.EmptyRepoChecksum + `"`
		var held []<-chan *httptest.ResponseRecorder
		for range 2 {
			held = append(held, startCall(s, reader, "GET", wait, "", "If-None-Match", inm))
		}
		synctest.Wait()

		over := call(s, reader, "GET", wait, "", "If-None-Match", inm)
		e := api.ParseError(over.Code, over.Body.Bytes())
		if over.Code != http.StatusTooManyRequests || e.Code != api.CodeRateLimited || over.Header().Get("Retry-After") == "" {
			t.Errorf("wait over the subject's cap = %d %q Retry-After %q, want 429 %q with Retry-After",
				over.Code, e.Code, over.Header().Get("Retry-After"), api.CodeRateLimited)
		}
		other := startCall(s, tok, "GET", wait, "", "If-None-Match", inm)
		synctest.Wait()
		select {
		case w := <-other:
			t.Fatalf("another subject's wait = %d %s at once, want it held", w.Code, w.Body)
		default:
		}
		if w := call(s, tok, "PUT", target, `{"entries":{"a.md":"a"}}`); w.Code != http.StatusOK {
			t.Fatalf("PUT = %d %s", w.Code, w.Body)
		}
		for i, ch := range append(held, other) {
			if w := <-ch; w.Code != http.StatusOK {
				t.Errorf("held wait %d after the PUT = %d, want 200", i, w.Code)
			}
		}
		metrics := call(s, "", "GET", "/metrics", "").Body.String()
		if want := `teammemd_change_wait_refusals_total{reason="subject"} 1`; !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
		// A slot freed is a slot to use again.
		again := startCall(s, reader, "GET", wait, "", "If-None-Match", `"`+api.EntryChecksum("x")+`"`)
		synctest.Wait()
		if w := <-again; w.Code != http.StatusOK {
			t.Errorf("wait after the subject's waits ended = %d, want 200 at once (checksum differs)", w.Code)
		}
	})
}

// TestWaitSlots walks waitSlots through a sequence of takes and gives.
func TestWaitSlots(t *testing.T) {
	w := newWaitSlots(3, 2)
	steps := []struct {
		op, subject string // op "take" or "give"
		want        string // for take: "" when a slot is taken, else the refusal
	}{
		{"take", "ann", ""},
		{"take", "ann", ""},
		{"take", "ann", refusedSubject},
		{"take", "bob", ""},
		{"take", "cat", refusedServer},
		{"give", "ann", ""},
		{"take", "cat", ""},
		{"take", "ann", refusedServer},
		{"give", "bob", ""},
		{"take", "ann", ""},
		{"take", "ann", refusedServer},
		{"give", "cat", ""},
		{"take", "ann", refusedSubject},
	}
	for i, st := range steps {
		if st.op == "give" {
			w.release(st.subject)
			continue
		}
		reason, ok := w.acquire(st.subject)
		if reason != st.want || ok != (st.want == "") {
			t.Errorf("step %d: acquire(%s) = %q, %v, want %q", i, st.subject, reason, ok, st.want)
		}
	}
	for _, subject := range []string{"ann", "ann"} {
		w.release(subject)
	}
	if n, subjects := w.count(), len(w.bySubject); n != 0 || subjects != 0 {
		t.Errorf("after every slot is given back: %d slots held, %d subjects remembered, want 0 and 0", n, subjects)
	}
}
