package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/teammemd/teammemd/server/store/sqlite"
)

// bindingStore opens a database in t.TempDir() for the GitHub mode's
// bindings, outside any synctest bubble; it is closed when the test ends.
func bindingStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// heldGitHub is a transport standing in for GitHub that holds every request
// until release is closed, then refuses the token; it counts the requests
// it holds.
type heldGitHub struct {
	release chan struct{}

	mu             sync.Mutex
	inFlight, most int
}

func (h *heldGitHub) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.inFlight++
	h.most = max(h.most, h.inFlight)
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.inFlight--
		h.mu.Unlock()
	}()
	select {
	case <-h.release:
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
	return &http.Response{StatusCode: http.StatusUnauthorized, Header: http.Header{}, Request: r,
		Body: io.NopCloser(strings.NewReader(`{"message":"Bad credentials"}`))}, nil
}

func (h *heldGitHub) counts() (inFlight, most int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.inFlight, h.most
}

// TestChecksInFlightBounded sends more new GitHub tokens at once than
// max_checks_in_flight: GitHub never sees more checks than that at once,
// the others wait for a slot, and one that waits longer than the upstream
// timeout is answered unavailable.
func TestChecksInFlightBounded(t *testing.T) {
	const slots, requests = 4, 20
	st := bindingStore(t)
	synctest.Test(t, func(t *testing.T) {
		gh := &heldGitHub{release: make(chan struct{})}
		off := false
		m, err := New(Config{Tokens: &off, GitHub: GitHubConfig{Enabled: true}, MaxChecksInFlight: slots},
			nil, Options{HTTPClient: &http.Client{Transport: gh}, Bindings: st})
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, requests)
		var wg sync.WaitGroup
		for i := range requests {
			wg.Go(func() {
				_, err := m.Authenticate(context.Background(), fmt.Sprintf("ghp_held%032d", i))
				errs <- err
			})
		}
		synctest.Wait()
		if inFlight, _ := gh.counts(); inFlight != slots {
			t.Errorf("%d new tokens at once: GitHub holds %d checks, want %d", requests, inFlight, slots)
		}
		close(gh.release)
		wg.Wait()
		close(errs)
		for err := range errs {
			if !errors.Is(err, ErrUnauthenticated) {
				t.Errorf("Authenticate(held token) error = %v, want a refusal", err)
			}
		}
		if _, most := gh.counts(); most != slots {
			t.Errorf("GitHub held at most %d checks at once, want %d", most, slots)
		}
	})
}

// TestCheckWaitEnds: a check that finds every slot taken for longer than
// the upstream timeout is answered unavailable, so the client retries.
func TestCheckWaitEnds(t *testing.T) {
	st := bindingStore(t)
	synctest.Test(t, func(t *testing.T) {
		gh := &heldGitHub{release: make(chan struct{})}
		off := false
		m, err := New(Config{Tokens: &off, GitHub: GitHubConfig{Enabled: true}, MaxChecksInFlight: 1},
			nil, Options{HTTPClient: &http.Client{Transport: gh}, Bindings: st})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Go(func() { _, _ = m.Authenticate(context.Background(), "ghp_first00000000000000000000000000000") })
		synctest.Wait()
		start := time.Now()
		_, err = m.Authenticate(context.Background(), "ghp_second0000000000000000000000000000")
		var unavail *UnavailableError
		if !errors.As(err, &unavail) || time.Since(start) != UpstreamTimeout {
			t.Errorf("Authenticate(no slot free) = %v after %s, want unavailable after %s", err, time.Since(start), UpstreamTimeout)
		}
		close(gh.release)
		wg.Wait()
	})
}
