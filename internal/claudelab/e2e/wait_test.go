package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/daemon"
)

// waitStatus polls teammemd status --json as the user until the daemon's
// one repo satisfies done, bounded by syncTimeout; what says what it waits
// for, in errors.
func waitStatus(ctx context.Context, lab *proclab.Lab, u *user, what string, done func(daemon.RepoStatus) bool) error {
	deadline := time.Now().Add(syncTimeout)
	for {
		out, err := lab.Run(ctx, u.shellEnv(), nil, "status", "--json")
		var st daemon.Status
		if err == nil && json.Unmarshal([]byte(out), &st) == nil && len(st.Repos) == 1 && done(st.Repos[0]) {
			return nil
		}
		switch {
		case u.daemon.Exited():
			return fmt.Errorf("%s's daemon exited before it could %s: %s", u.name, what, u.daemon.LogTail())
		case time.Now().After(deadline):
			return fmt.Errorf("%s's daemon did not %s within %s: status %s %v; log: %s", u.name, what, syncTimeout, out, err, u.daemon.LogTail())
		}
		if err := proclab.Pause(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// waitHook runs the session-start hook as u, in u's checkout, until a
// line of its output holds both want and author, bounded by syncTimeout.
// The hook names who last changed a note from the daemon's provenance
// record, which the daemon refreshes from the server's history once the
// repo has been quiet for half a second after a pull; until then it shows
// the note as a local change.
func waitHook(ctx context.Context, lab *proclab.Lab, u *user, want, author string) error {
	in, err := json.Marshal(map[string]string{"cwd": u.checkout})
	if err != nil {
		return err
	}
	deadline := time.Now().Add(syncTimeout)
	for {
		out, err := lab.Run(ctx, u.shellEnv(), bytes.NewReader(in), "hook", "session-start")
		for line := range strings.Lines(out) {
			if strings.Contains(line, want) && strings.Contains(line, author) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s's session-start hook did not name %s for %q within %s: %s %v; log: %s",
				u.name, author, want, syncTimeout, out, err, u.daemon.LogTail())
		}
		if err := proclab.Pause(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// waitFile polls path until it holds want, bounded by syncTimeout.
func waitFile(ctx context.Context, path, want string) error {
	deadline := time.Now().Add(syncTimeout)
	for {
		got, err := os.ReadFile(path)
		if err == nil && string(got) == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not hold the note within %s: %q, %v", path, syncTimeout, got, err)
		}
		if err := proclab.Pause(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// serverEntries returns the entries the server holds for the repo.
func serverEntries(ctx context.Context, srv *proclab.Server, token string) (map[string]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+api.Path+"?repo="+url.QueryEscape(repo), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", req.URL, resp.Status)
	}
	var full api.FullResponse
	if err := json.NewDecoder(resp.Body).Decode(&full); err != nil {
		return nil, fmt.Errorf("GET %s: %w", req.URL, err)
	}
	return full.Content.Entries, nil
}
