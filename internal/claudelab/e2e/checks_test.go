package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/internal/claudelab"
	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/scan/scantest"
)

// checkAliceWrote checks that alice's client wrote the first note and
// refused the second, and returns the first as it is on her disk (the
// client may add to the frontmatter).
func checkAliceWrote(t *testing.T, alice *user, n notes) string {
	t.Helper()
	written, err := os.ReadFile(filepath.Join(alice.team, noteName))
	if err != nil {
		t.Fatalf("alice's client did not write the note: %v; it sent %s", err, summary(alice.fake.Requests()))
	}
	if !strings.Contains(string(written), n.body) {
		t.Errorf("alice's note = %q, want the text the model wrote (%s)", written, n.body)
	}
	if _, err := os.Stat(filepath.Join(alice.team, secretName)); err == nil {
		t.Errorf("alice's client wrote %s with the AWS key into the team directory, want it refused", secretName)
	}
	results := map[string]claudelab.ToolResult{}
	for _, r := range alice.fake.Requests() {
		for _, res := range r.ToolResults() {
			results[res.ID] = res
		}
	}
	if res := results[noteCall]; res.ID == "" || res.Error {
		t.Errorf("alice's Write of %s = %+v, want it done", noteName, res)
	}
	if res := results[secretCall]; !res.Error || !strings.Contains(res.Text, "secret") {
		t.Errorf("alice's Write of %s = %+v, want it refused for the secret", secretName, res)
	}
	return string(written)
}

// checkServer checks that the server holds the note as alice's disk does,
// and neither the note held back nor anything hidden, such as Claude
// Code's .memory-sync manifests.
func checkServer(t *testing.T, srv *proclab.Server, token, written string) {
	t.Helper()
	entries, err := serverEntries(t.Context(), srv, token)
	if err != nil {
		t.Fatal(err)
	}
	if got := entries[noteName]; got != written {
		t.Errorf("server's %s = %q, want alice's %q", noteName, got, written)
	}
	for key := range entries {
		if key == secretName || strings.HasPrefix(filepath.Base(key), ".") {
			t.Errorf("server holds %s, want only the notes that sync", key)
		}
	}
}

// checkHook checks that bob's first request to the model carries the
// hook's index of the team's notes, in the frame of the client's version:
// the note's description and who changed it last.
func checkHook(t *testing.T, bob *user, frame string, n notes) {
	t.Helper()
	reqs := requestsOf(bob, claudelab.Main)
	if len(reqs) == 0 {
		t.Fatalf("bob's client sent no request to the model")
	}
	for _, text := range reqs[0].Texts() {
		if !strings.HasPrefix(text, frame) {
			continue
		}
		for line := range strings.Lines(text) {
			if strings.Contains(line, n.description) && strings.Contains(line, "alice") {
				return
			}
		}
		t.Errorf("bob's hook output = %q, want a line with %q and alice", text, n.description)
		return
	}
	t.Errorf("bob's first request has no text that starts %q; it sent %s", frame, summary(bob.fake.Requests()))
}

// checkRecall checks that bob's client listed the note by its description
// in the recall query, and put the note, which the fake model selected,
// into a later request.
func checkRecall(t *testing.T, bob *user, n notes) {
	t.Helper()
	reqs := bob.fake.Requests()
	i := slices.IndexFunc(reqs, func(r claudelab.Request) bool { return r.Kind == claudelab.Recall })
	if i < 0 {
		t.Fatalf("bob's client sent no recall query; it sent %s", summary(reqs))
	}
	query := strings.Join(reqs[i].Texts(), "\n")
	if !strings.Contains(query, "team/"+noteName) || !strings.Contains(query, n.description) {
		t.Errorf("bob's recall query = %q, want team/%s with %q", query, noteName, n.description)
	}
	recalled := slices.ContainsFunc(reqs[i+1:], func(r claudelab.Request) bool {
		return r.Kind == claudelab.Main && strings.Contains(strings.Join(r.Texts(), "\n"), n.body)
	})
	if !recalled {
		t.Errorf("no request of bob's after the recall holds the note's text %q; it sent %s", n.body, summary(reqs))
	}
}

// checkNoSecret checks that nothing bob's client sent holds the held-back
// note: neither the key nor the note's description.
func checkNoSecret(t *testing.T, bob *user, n notes) {
	t.Helper()
	for i, r := range bob.fake.Requests() {
		if leaks := scantest.Leaks(string(r.Body), n.secret, 8); len(leaks) > 0 {
			t.Errorf("bob's request %d holds the AWS key: %s", i, leaks)
		}
		if strings.Contains(string(r.Body), n.secretDescription) {
			t.Errorf("bob's request %d names the held-back note %q", i, n.secretDescription)
		}
	}
}

// checkNoTraffic checks that no client and no daemon tried to reach any
// host but the fake API and the server.
func checkNoTraffic(t *testing.T, users ...*user) {
	t.Helper()
	for _, u := range users {
		if got := u.proxy.Attempts(); len(got) != 0 {
			t.Errorf("%s's proxy saw %d connection attempts %q, want none", u.name, len(got), got)
		}
	}
}

// requestsOf returns the user's requests of one kind.
func requestsOf(u *user, kind claudelab.Kind) []claudelab.Request {
	var out []claudelab.Request
	for _, r := range u.fake.Requests() {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// summary lists requests by kind and size, for failure messages.
func summary(reqs []claudelab.Request) string {
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		parts[i] = fmt.Sprintf("%s %s (%s, %d bytes)", r.Method, r.Path, r.Kind, len(r.Body))
	}
	return fmt.Sprintf("%d requests: %s", len(reqs), strings.Join(parts, "; "))
}
