package memsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

const goodNote = "---\nname: deploy\ndescription: how we deploy\ntype: project\n---\nbody\n"

func TestCheckNote(t *testing.T) {
	long := strings.Repeat("- line\n", 250)
	pad := func(n int) string { return goodNote + strings.Repeat("x", n-len(goodNote)) }
	wide := strings.Repeat(strings.Repeat("x", 199)+"\n", 150) // 30,000 bytes in 150 lines
	tests := []struct {
		key, data string
		personal  bool
		warning   string // a part of the only warning, or "" for none
	}{
		{"deploy.md", goodNote, false, ""},
		{"deploy.md", "---\r\nname: deploy\r\ndescription: 'how'\r\ntype: \"feedback\"\r\n---\r\n", false, ""},
		{"me.md", "---\nname: me\ndescription: mine\ntype: user\n---\n", true, ""},
		{"me.md", "---\nname: me\ndescription: mine\nmetadata:\n  type: user\n---\n", true, ""},
		{"deploy.md", "---\nname: deploy\ndescription: how\nmetadata:\n  type: project\n  source: x\n---\nbody\n", false, ""},
		{"deploy.md", "---\nname: deploy\ndescription: how\nmetadata:\n  type: howto\n---\n", false, `unknown type "howto"`},
		{"deploy.md", "just text\n", false, "no frontmatter"},
		{"deploy.md", "---\nname: deploy\ntype: project\n", false, "no frontmatter"},
		{"deploy.md", "---\nname: deploy\n---\n", false, "lacks description, type"},
		{"deploy.md", "---\nname: deploy\ndescription: d\ntype: howto\n---\n", false, `unknown type "howto"`},
		{"sub/x.md", "---\ndescription: d\ntype: reference\n---\n", false, "lacks name"},
		{"notes.txt", "anything", false, ""},
		{"MEMORY.md", strings.Repeat("- line\n", 200), false, ""},
		{"MEMORY.md", long, false, "250 lines, 1750 bytes: Claude Code loads the first 200 lines and 25000 bytes, so the last 50 lines (350 bytes) are cut"},
		{"MEMORY.md", wide, false, "150 lines, 30000 bytes: Claude Code loads the first 200 lines and 25000 bytes, so the last 25 lines (5000 bytes) are cut"},
		{"MEMORY.md", strings.Repeat("- line\n", 200) + "tail", false, "201 lines"},
		{"big.md", pad(NoteMaxBytes), false, ""},
		{"big.md", pad(NoteMaxBytes + 1), false, "102401 bytes: Claude Code 2.1.210 and later do not load a memory file over 102400 bytes"},
		{"big.txt", strings.Repeat("y", 150_000), false, "150000 bytes"},
	}
	for _, tt := range tests {
		c := CheckNote(tt.key, []byte(tt.data))
		got := strings.Join(c.Warnings, "; ")
		if c.Personal != tt.personal || (tt.warning == "") != (got == "") || !strings.Contains(got, tt.warning) || len(c.Warnings) > 1 {
			t.Errorf("CheckNote(%s, %.30q) = personal %v, %q; want personal %v, a warning with %q", tt.key, tt.data, c.Personal, got, tt.personal, tt.warning)
		}
	}
}

// TestGuardsOnPush: a personal note is held back with the reason, the
// other notes are pushed with their warnings reported; the config lets a
// personal note through.
func TestGuardsOnPush(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "MEMORY.md", strings.Repeat("- a line\n", 201))
	a.write(t, "deploy.md", goodNote)
	a.write(t, "me.md", "---\nname: me\ndescription: my habits\ntype: user\n---\n")
	a.write(t, "bare.md", "no frontmatter\n")
	rep := a.sync(t)
	if fmt.Sprint(rep.Pushed) != "[MEMORY.md bare.md deploy.md]" {
		t.Errorf("Pushed = %v, want every note but me.md", rep.Pushed)
	}
	if len(rep.Held) != 1 || rep.Held[0].Key != "me.md" || !strings.Contains(rep.Held[0].Reason, "share_user_notes") {
		t.Errorf("Held = %+v, want me.md with the reason", rep.Held)
	}
	if len(rep.Warnings) != 2 || rep.Warnings[0].Key != "MEMORY.md" || rep.Warnings[1].Key != "bare.md" {
		t.Errorf("Warnings = %+v, want MEMORY.md and bare.md", rep.Warnings)
	}
	if _, ok := serverEntries(t, srv)["me.md"]; ok {
		t.Errorf("server holds me.md, want it held back")
	}
	rep = a.sync(t)
	if len(rep.Held) != 1 || len(rep.Warnings) != 2 || rep.PUTs != 0 {
		t.Errorf("second sync = held %+v, warnings %+v, %d PUTs; want the same, nothing sent", rep.Held, rep.Warnings, rep.PUTs)
	}
	share, err := New(Config{Dir: a.dir, Repo: testRepo, Server: srv.URL, StateDir: a.state, ShareUserNotes: true},
		Options{Client: testClient(t, srv.URL, srv.Token)})
	if err != nil {
		t.Fatal(err)
	}
	rep, err = share.Sync(context.Background())
	if err != nil || fmt.Sprint(rep.Pushed) != "[me.md]" || len(rep.Held) != 0 {
		t.Errorf("Sync with share_user_notes = pushed %v, held %+v, %v; want me.md pushed", rep.Pushed, rep.Held, err)
	}
}

// The warnings come in key order, however many files have them, and a
// verdict on a file gone is forgotten.
func TestWarningsInKeyOrder(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	var want []string
	for i := range 40 {
		k := fmt.Sprintf("bare-%02d.md", (i*17)%40) // written out of order
		a.write(t, k, "no frontmatter\n")
		a.write(t, fmt.Sprintf("good-%02d.md", i), goodNote)
	}
	for i := range 40 {
		want = append(want, fmt.Sprintf("bare-%02d.md", i))
	}
	rep := a.sync(t)
	var got []string
	for _, w := range rep.Warnings {
		got = append(got, w.Key)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("warnings on %v, want %v", got, want)
	}
	must(t, os.Remove(filepath.Join(a.dir, "bare-03.md")))
	must(t, os.Remove(filepath.Join(a.dir, "good-05.md")))
	a.sync(t)
	a.eng.mu.Lock()
	_, bare := a.eng.guards["bare-03.md"]
	_, good := a.eng.guards["good-05.md"]
	n := len(a.eng.guards)
	a.eng.mu.Unlock()
	if bare || good || n != 78 {
		t.Errorf("guards keep %d verdicts (bare-03.md %v, good-05.md %v), want 78, none on the files gone", n, bare, good)
	}
}

func TestLint(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "deploy.md", goodNote)
	if got, err := Lint(a.dir, false); err != nil || len(got) != 0 {
		t.Errorf("Lint(clean) = %+v, %v, want nothing", got, err)
	}
	a.write(t, "me.md", "---\nname: me\ndescription: mine\ntype: user\n---\n")
	a.write(t, "sub/odd.md", "---\nname: odd\ndescription: d\ntype: howto\n---\n")
	got, err := Lint(a.dir, false)
	if err != nil || len(got) != 2 || got[0].Key != "me.md" || got[1].Key != "sub/odd.md" {
		t.Errorf("Lint = %+v, %v, want me.md and sub/odd.md", got, err)
	}
	if got, _ := Lint(a.dir, true); len(got) != 1 {
		t.Errorf("Lint(share user notes) = %+v, want only sub/odd.md", got)
	}
}
