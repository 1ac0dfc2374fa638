package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/sync/daemon"
)

// TestPrintStatusStuckStates checks that every stuck state says why and
// what to do, in the text status and in --json.
// The server line says when the server last answered, and since when it
// has not, as soon as a request failed to reach it.
func TestPrintStatusContact(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ago time.Duration) *time.Time { t := now.Add(-ago); return &t }
	tests := []struct {
		name string
		repo daemon.RepoStatus
		want string
	}{
		{"connected", daemon.RepoStatus{Live: true, LastContact: at(5 * time.Second)}, "server:     http://s (connected, last contact 5s ago)\n"},
		{"unreachable", daemon.RepoStatus{LastContact: at(20 * time.Second), UnreachableSince: at(10 * time.Second)},
			"server:     http://s (unreachable since 03:03:55, 10s ago; last contact 20s ago)\n"},
		{"never reached", daemon.RepoStatus{UnreachableSince: at(3 * time.Second)},
			"server:     http://s (unreachable since 03:04:02, 3s ago; never reached)\n"},
		{"starting", daemon.RepoStatus{}, "server:     http://s (not connected)\n"},
	}
	for _, tt := range tests {
		tt.repo.Repo, tt.repo.Dir, tt.repo.Server = "acme/app", "/t", "http://s"
		var b bytes.Buffer
		if err := printStatus(&b, daemon.Status{Repos: []daemon.RepoStatus{tt.repo}}, now); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("printStatus(%s) = %q, want it to contain %q", tt.name, b.String(), tt.want)
		}
	}
}

func TestPrintStatusStuckStates(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ok := &daemon.OpResult{Time: now.Add(-time.Minute), OK: true, Result: "up to date"}
	mass := "3 of 4 synced files are gone from /t; refusing to delete them on the server (restore them, or to delete them there too, run: teammemd sync --allow-mass-delete --dir /t --repo acme/app)"
	tests := []struct {
		name string
		repo daemon.RepoStatus
		text []string // what the text status says
		json string   // and the JSON
	}{
		{"missing", daemon.RepoStatus{State: daemon.StateMissing, LastPull: ok, Missing: "team directory /t is missing"},
			[]string{"state:      missing (the team directory is missing; syncing resumes once it exists again)", "directory missing: team directory /t is missing\n"},
			`"missing":"team directory /t is missing"`},
		{"unreadable", daemon.RepoStatus{State: daemon.StateHeld, LastPull: ok, Held: []daemon.Held{{Path: "note1.md", Reason: "cannot be read (permission denied); it syncs once it is readable"}}},
			[]string{"state:      held (in sync but for what is held back; see held back)", "held back:  note1.md (cannot be read (permission denied); it syncs once it is readable)\n"},
			`"held":[{"path":"note1.md","reason":"cannot be read (permission denied); it syncs once it is readable"}]`},
		{"deletions", daemon.RepoStatus{State: daemon.StateHeld, LastPull: ok, HeldDeletions: []string{"a.md", "b.md", "c.md"}, MassDeletion: mass},
			[]string{"deletions held back: a.md, b.md, c.md (" + mass + ")\n"},
			`"heldDeletions":["a.md","b.md","c.md"],"massDeletion":"` + mass + `"`},
		{"pending", daemon.RepoStatus{State: daemon.StatePending, LastPull: ok, Pending: []string{"a.md"}},
			[]string{"state:      pending (changes wait to be pushed)", "pending:    a.md\n"}, `"pending":["a.md"]`},
		{"debouncing", daemon.RepoStatus{State: daemon.StateDebouncing, LastPull: ok, Debouncing: []string{"a.md", "b.md"}},
			[]string{"state:      debouncing (files changed here wait out the debounce, then are pushed; see debouncing)",
				"pending:    none\n  debouncing: a.md, b.md (changed here; pushed once no file has changed for the debounce)\n"},
			`"pending":null,"debouncing":["a.md","b.md"]`},
		{"many debouncing", daemon.RepoStatus{State: daemon.StateDebouncing, LastPull: ok, Debouncing: []string{"a.md", "b.md", "c.md", "d.md", "e.md", "f.md", "g.md"}},
			[]string{"debouncing: a.md, b.md, c.md, d.md, e.md and 2 more (changed here;"},
			`"debouncing":["a.md","b.md","c.md","d.md","e.md","f.md","g.md"]`},
		{"review", daemon.RepoStatus{State: daemon.StateIdle, LastPull: ok, Review: []daemon.ReviewFile{
			{Path: "a.md", Proposal: 3, State: daemon.ReviewPending},
			{Path: "b.md", Proposal: 2, State: daemon.ReviewRejected, Reviewer: "carol", Reason: "port is 9090"}}},
			[]string{"review:     a.md: pending review (proposal 3;", "review:     b.md: rejected: port is 9090 (by carol, proposal 2; your file keeps your change"},
			`"review":[{"path":"a.md","proposal":3,"state":"pending review"},{"path":"b.md","proposal":2,"state":"rejected","reviewer":"carol","reason":"port is 9090"}]`},
		{"failed", daemon.RepoStatus{State: daemon.StateFailed, LastPull: ok},
			[]string{"state:      failed (the last pull or push failed; edit a file or reload the config to try again)"}, `"state":"failed"`},
		{"wrong server", daemon.RepoStatus{State: "wrong-server", LastPull: ok, Halted: "the server at http://s/x does not answer as a teammemd server: HTTP 404"},
			[]string{"state:      wrong-server (the server URL does not lead to a teammemd server: fix it and reload the config)",
				"stopped:    the server at http://s/x does not answer as a teammemd server: HTTP 404\n"},
			`"state":"wrong-server"`},
		{"unauthorized", daemon.RepoStatus{State: "unauthorized", LastPull: ok, Halted: "the server rejected the token (bad token): run teammemd login"},
			[]string{"state:      unauthorized (the server rejected the token, or your teammemd login ended; see stopped for what to do)",
				"stopped:    the server rejected the token (bad token): run teammemd login\n"},
			`"halted":"the server rejected the token (bad token): run teammemd login"`},
		{"conflict", daemon.RepoStatus{State: daemon.StateConflict, LastPull: ok, Conflict: []string{"/s/deploy.conflict-1.md"}},
			[]string{"state:      conflict (a conflict copy waits: teammemd conflicts lists it; teammemd conflicts resolve KEY --keep local|server|FILE settles it)",
				"conflict copy: /s/deploy.conflict-1.md\n"},
			`"state":"conflict"`},
		{"personal lane conflict", daemon.RepoStatus{Lane: daemon.LanePersonal, State: daemon.StateConflict, LastPull: ok, Conflict: []string{"/s/plans.conflict-1.md"}},
			[]string{"state:      conflict (a conflict copy waits: teammemd conflicts lists it; teammemd conflicts resolve KEY --personal --keep local|server|FILE settles it)",
				"conflicts:  1 unresolved (teammemd conflicts lists them; teammemd conflicts resolve KEY --personal --keep local|server|FILE settles one)\n"},
			`"lane":"personal"`},
		{"personal lane stopped", daemon.RepoStatus{Lane: daemon.LanePersonal, State: daemon.StateLaneStopped, LastPull: ok,
			Halted: "the personal key was rotated on another machine; run `teammemd personal join`"},
			[]string{"acme/app (personal lane, end-to-end encrypted)\n",
				"state:      lane-stopped (the personal lane cannot go on; see stopped for why and what to do)",
				"stopped:    the personal key was rotated on another machine; run `teammemd personal join`\n"},
			`"lane":"personal","dir":"/t","server":"","state":"lane-stopped"`},
		{"idle", daemon.RepoStatus{State: daemon.StateIdle, LastPull: ok},
			[]string{"state:      idle\n"}, `"state":"idle"`},
	}
	for _, tt := range tests {
		tt.repo.Repo, tt.repo.Dir = "acme/app", "/t"
		var b bytes.Buffer
		if err := printStatus(&b, daemon.Status{Repos: []daemon.RepoStatus{tt.repo}}, now); err != nil {
			t.Fatal(err)
		}
		for _, want := range tt.text {
			if !strings.Contains(b.String(), want) {
				t.Errorf("printStatus(%s) = %q, want it to contain %q", tt.name, b.String(), want)
			}
		}
		data, err := json.Marshal(tt.repo)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), tt.json) {
			t.Errorf("json.Marshal(%s) = %s, want it to contain %s", tt.name, data, tt.json)
		}
	}
}
