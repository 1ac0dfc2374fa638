package personal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
	"github.com/teammemd/teammemd/sync/personal"
	"github.com/teammemd/teammemd/sync/personal/personaltest"
)

const project = "acme/app"

// machine is one of alice's machines: a project's memory directory and a
// state directory, with the personal lane's engine over them.
type machine struct {
	mem, state string
	eng        *memsync.Engine
	tr         *personal.Transport
}

// lab is a real server and alice's personal key, stored there.
type lab struct {
	srv   *servertest.Server
	token string
	keys  personal.Keys
}

func newLab(t *testing.T) *lab {
	t.Helper()
	srv := servertest.Start(t)
	k, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{srv: srv, token: srv.CreateToken(t, "alice"), keys: personal.Keys{Current: k}}
	personaltest.Init(t, srv.URL, l.token, k)
	return l
}

func (l *lab) machine(t *testing.T, keys personal.Keys) *machine {
	t.Helper()
	return l.machineWith(t, keys, memsync.Options{})
}

func (l *lab) machineWith(t *testing.T, keys personal.Keys, opts memsync.Options) *machine {
	t.Helper()
	m := &machine{mem: filepath.Join(t.TempDir(), "memory"), state: t.TempDir()}
	c, err := memsync.NewClient(l.srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: l.token}),
		memsync.WithRetry(1, time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	cfg := personal.LaneConfig{Dir: m.mem, Project: project, Files: memsync.ProjectMemory, Server: l.srv.URL, StateDir: m.state}
	m.eng, m.tr, err = personal.OpenLane(cfg, keys, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *machine) sync(t *testing.T) memsync.Report {
	t.Helper()
	rep, err := m.eng.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return rep
}

func (m *machine) write(t *testing.T, key, value string) {
	t.Helper()
	claudetest.WriteNote(t, m.mem, key, value)
}
func (m *machine) read(t *testing.T, key string) string {
	t.Helper()
	return claudetest.ReadNote(t, m.mem, key)
}

// stored is what the server holds of the lane.
func (l *lab) stored(t *testing.T, lane string) map[string]string {
	t.Helper()
	return personaltest.Entries(t, l.srv.URL, l.token, lane, l.keys.Current)
}

const note = "---\nname: prefs\ntype: user\n---\nI like tabs.\n"

// TestLaneConverges: a private note, of type user, goes from one machine
// to the other and back; the server holds only sealed names and values;
// team/, logs/, dot-files and conflict copies stay where they are.
func TestLaneConverges(t *testing.T) {
	l := newLab(t)
	a, b := l.machine(t, l.keys), l.machine(t, l.keys)
	a.write(t, "prefs.md", note)
	for _, k := range []string{"team/shared.md", "logs/today.md", "sessions/s.md", "proposals/p.md", ".hidden.md",
		"prefs.20260101T000000.000Z.local.md"} {
		a.write(t, k, "not personal\n")
	}
	if rep := a.sync(t); len(rep.Pushed) != 1 {
		t.Fatalf("first push sent %v, want only prefs.md", rep.Pushed)
	}
	for k, v := range l.stored(t, a.tr.Lane()) {
		if !strings.HasSuffix(k, ".age") || strings.Contains(v, "tabs") || strings.Contains(k, "prefs") {
			t.Errorf("server holds %q = %q, want a sealed name and value", k, v)
		}
	}
	b.sync(t)
	if got := b.read(t, "prefs.md"); got != note {
		t.Fatalf("second machine's prefs.md = %q, want %q", got, note)
	}
	if got := b.read(t, "team/shared.md"); got != "<missing>" {
		t.Errorf("team/shared.md reached the second machine through the personal lane: %q", got)
	}
	b.write(t, "prefs.md", note+"And dark mode.\n")
	b.sync(t)
	a.sync(t)
	if got := a.read(t, "prefs.md"); !strings.Contains(got, "dark mode") {
		t.Errorf("first machine's prefs.md = %q, want the second machine's edit", got)
	}
}

// TestLaneDeletionAndConflict: a deletion travels, and an edit made on
// both machines keeps both versions.
func TestLaneDeletionAndConflict(t *testing.T) {
	l := newLab(t)
	a, b := l.machine(t, l.keys), l.machine(t, l.keys)
	a.write(t, "one.md", "one\n")
	a.write(t, "two.md", "two\n")
	a.sync(t)
	b.sync(t)
	if err := os.Remove(filepath.Join(a.mem, "one.md")); err != nil {
		t.Fatal(err)
	}
	a.write(t, "two.md", "two from a\n")
	a.sync(t)
	b.write(t, "two.md", "two from b\n")
	rep := b.sync(t)
	if got := b.read(t, "one.md"); got != "<missing>" {
		t.Errorf("one.md on the second machine = %q, want it deleted", got)
	}
	if got := b.read(t, "two.md"); got != "two from a\n" {
		t.Errorf("two.md = %q, want the version the server had first", got)
	}
	if len(rep.Conflicts) != 1 {
		t.Fatalf("conflicts = %v, want one copy of the second machine's edit", rep.Conflicts)
	}
	if data, err := os.ReadFile(rep.Conflicts[0].Path); err != nil || string(data) != "two from b\n" {
		t.Errorf("conflict copy = %q, %v, want the second machine's edit", data, err)
	}
	// The copy is listed under the lane, named by its ID, apart from every
	// team repo's.
	host, err := memsync.ServerHost(l.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := memsync.ConflictsIn(b.state)
	if err != nil || len(listed) != 1 || listed[0].Lane != b.tr.Lane() || listed[0].Repo != "~personal/"+b.tr.Lane() ||
		listed[0].Server != host || len(listed[0].Conflicts) != 1 || listed[0].Conflicts[0].Path != rep.Conflicts[0].Path {
		t.Errorf("ConflictsIn = %+v, %v; want the copy under lane %s on %s", listed, err, b.tr.Lane(), host)
	}
}

// TestLaneKeyRotated: once the server's key is another, the lane stops
// and writes nothing, here or there.
func TestLaneKeyRotated(t *testing.T) {
	l := newLab(t)
	a, b := l.machine(t, l.keys), l.machine(t, l.keys)
	a.write(t, "one.md", "one\n")
	a.sync(t)
	other, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	personaltest.Rotate(t, l.srv.URL, l.token, l.keys.Current, other)
	before := l.stored(t, a.tr.Lane())
	a.write(t, "two.md", "two\n")
	for _, m := range []*machine{a, b} {
		_, err := m.eng.Sync(context.Background())
		if memsync.Classify(err) != memsync.LaneStopped || !strings.Contains(err.Error(), "teammemd personal join") {
			t.Errorf("Sync() after a rotation = %v, want the lane stopped with the fix", err)
		}
	}
	if got := b.read(t, "one.md"); got != "<missing>" {
		t.Errorf("the second machine wrote one.md after the rotation: %q", got)
	}
	if after := l.stored(t, a.tr.Lane()); len(after) != len(before) {
		t.Errorf("server entries after the rotation = %d, want %d", len(after), len(before))
	}
}

// TestLaneForeignNote: a note sealed with a key this machine lacks stops
// the pull before anything is written.
func TestLaneForeignNote(t *testing.T) {
	l := newLab(t)
	a := l.machine(t, l.keys)
	a.write(t, "mine.md", "mine\n")
	a.sync(t)
	stranger, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	_, value, err := stranger.Seal(personal.Note{Project: project, Path: "theirs.md", Content: []byte("theirs\n")})
	if err != nil {
		t.Fatal(err)
	}
	wire := l.keys.Current.EntryKey(project, "theirs.md")
	c, err := memsync.NewClient(l.srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: l.token}))
	if err != nil {
		t.Fatal(err)
	}
	body := `{"entries":{"` + wire + `":` + quote(value) + `}}`
	if _, err := c.PersonalPut(context.Background(), a.tr.Lane(), l.keys.Current.ID(), "", []byte(body)); err != nil {
		t.Fatal(err)
	}
	b := l.machine(t, l.keys)
	_, err = b.eng.Sync(context.Background())
	if memsync.Classify(err) != memsync.LaneStopped || !strings.Contains(err.Error(), "does not have") {
		t.Errorf("Sync() = %v, want the lane stopped: a note this machine cannot open", err)
	}
	if got := b.read(t, "mine.md"); got != "<missing>" {
		t.Errorf("mine.md = %q, want nothing written", got)
	}
}

// TestLaneTooLarge: a note whose sealed value is over the server's entry
// limit is left out with the reason; the rest is sent.
func TestLaneTooLarge(t *testing.T) {
	l := newLab(t)
	a := l.machine(t, l.keys)
	a.write(t, "big.md", strings.Repeat("x", 200_000)+"\n")
	a.write(t, "small.md", "small\n")
	rep, err := a.eng.Sync(context.Background())
	if err != nil {
		t.Logf("Sync: %v", err)
	}
	if len(rep.Pushed) != 1 || rep.Pushed[0] != "small.md" {
		t.Errorf("pushed %v, want small.md alone", rep.Pushed)
	}
	found := false
	for _, r := range rep.Refused {
		found = found || (r.Key == "big.md" && strings.Contains(r.Reason, "personal note must stay under"))
	}
	if !found {
		t.Errorf("refused = %+v, want big.md with the reason", rep.Refused)
	}
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// TestLaneScansBeforeSealing: the server cannot scan ciphertext, so the
// secret scan runs on the client before a note is sealed, as on a team
// repo: a private note that holds a secret is held back and never leaves
// the machine, sealed or not.
func TestLaneScansBeforeSealing(t *testing.T) {
	sc, err := scan.New(scan.Config{})
	if err != nil {
		t.Fatal(err)
	}
	l := newLab(t)
	a := l.machineWith(t, l.keys, memsync.Options{Scanner: sc})
	secret := "ghp_" + strings.Repeat("aB3dE6gH9j", 3) + "kL2mN7"
	a.write(t, "creds.md", "token: "+secret+"\n")
	a.write(t, "prefs.md", note)
	rep := a.sync(t)
	if len(rep.Blocked) != 1 || rep.Blocked[0].Key != "creds.md" {
		t.Fatalf("Blocked = %+v, want creds.md", rep.Blocked)
	}
	stored := l.stored(t, a.tr.Lane())
	if len(stored) != 1 {
		t.Fatalf("the lane holds %d notes, want prefs.md only", len(stored))
	}
	for k, v := range stored {
		n, _, err := personal.Open([]*personal.Key{l.keys.Current}, k, v)
		if err != nil || n.Path != "prefs.md" || strings.Contains(v, secret) {
			t.Errorf("the lane holds %s (%v), want prefs.md only", n.Path, err)
		}
	}
}
