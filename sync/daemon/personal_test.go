package daemon

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/personal"
	"github.com/teammemd/teammemd/sync/personal/personaltest"
)

// openTestLane opens a personal lane with the keys in the file its spec
// names, as the daemon's opener does with the machine's key store.
func openTestLane(s Spec, c *memsync.Client, stateDir string, log *slog.Logger) (Engine, Waiter, error) {
	ks := personal.NewKeyStore(filepath.Dir(s.KeyFile), "file")
	ks.Keyring = nil
	keys, err := ks.Load(context.Background(), s.Server)
	if err != nil {
		return nil, nil, err
	}
	files := memsync.ProjectMemory
	if s.Repo == personal.UserProject {
		files = memsync.UserFiles
	}
	cfg := personal.LaneConfig{Dir: s.Dir, Project: s.Repo, Files: files, Server: s.Server, StateDir: stateDir}
	eng, tr, err := personal.OpenLane(cfg, keys, c, memsync.Options{Logger: log})
	if err != nil {
		return nil, nil, err
	}
	return eng, tr, nil
}

// alice is one of alice's machines: a Claude Code config directory with
// one project, and her personal key stored for the server.
type alice struct {
	home, mem string
	keys      *personal.KeyStore
	node      *node
	plan      Plan
}

// personalLab is a real server (started with opts), and alice's personal
// key stored there.
type personalLab struct {
	srv   *servertest.Server
	token string
	key   *personal.Key
}

func newPersonalLab(t *testing.T, opts ...servertest.Option) *personalLab {
	t.Helper()
	srv := startServer(t, opts...)
	k, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	l := &personalLab{srv: srv, token: srv.CreateToken(t, "alice", store.Grant{Pattern: "**", Level: store.LevelWrite}), key: k}
	personaltest.Init(t, srv.URL, l.token, k, memsync.WithTransport(newTransport(t)))
	return l
}

// machine starts a daemon for a new machine of alice's: the plan of its
// one project's team repo, with the personal lanes WithPersonal adds.
func (l *personalLab) machine(t *testing.T, userFiles bool, edit func(*Options)) *alice {
	t.Helper()
	a := l.start(t, l.key, userFiles, edit)
	eventually(t, "both lanes live", func() bool {
		rt, okT := a.node.repoStatus(filepath.Join(a.mem, "team"))
		rp, okP := a.node.repoStatus(a.mem)
		return okT && okP && rt.Live && rp.Live
	})
	return a
}

// start starts a machine of alice's that holds key, without waiting.
func (l *personalLab) start(t *testing.T, key *personal.Key, userFiles bool, edit func(*Options)) *alice {
	t.Helper()
	a := &alice{home: t.TempDir()}
	a.mem = filepath.Join(a.home, "projects", "-src-app", "memory")
	if err := os.MkdirAll(filepath.Join(a.mem, "team"), 0o755); err != nil {
		t.Fatal(err)
	}
	ks := personal.NewKeyStore(t.TempDir(), "file")
	ks.Keyring = nil
	if err := ks.Save(context.Background(), l.srv.URL, personal.Keys{Current: key}); err != nil {
		t.Fatal(err)
	}
	team := Spec{Repo: slug, Dir: filepath.Join(a.mem, "team"), Server: l.srv.URL, Source: "test"}
	plan := WithPersonal(Plan{Specs: []Spec{team}},
		Personal{KeyFile: ks.Stored, Home: a.home, UserFiles: userFiles, UserServer: l.srv.URL})
	a.keys, a.plan = ks, plan
	a.node = startNode(t, l.token, plan, edit)
	return a
}

// laneEntries is what the server holds of alice's lane of the project.
func (l *personalLab) laneEntries(t *testing.T) map[string]string {
	t.Helper()
	return personaltest.Entries(t, l.srv.URL, l.token, l.key.LaneID(slug), l.key, memsync.WithTransport(newTransport(t)))
}

// TestPersonalLaneTwoMachines runs two of alice's daemons with both lanes:
// private notes converge both ways and deletions travel through the
// personal lane, team notes through the team repo, and neither lane
// carries the other's files.
func TestPersonalLaneTwoMachines(t *testing.T) { bubble(t, testPersonalLaneTwoMachines) }

func testPersonalLaneTwoMachines(t *testing.T) {
	l := newPersonalLab(t)
	a, b := l.machine(t, false, nil), l.machine(t, false, nil)
	if st, _ := a.node.repoStatus(a.mem); st.Lane != LanePersonal || st.Repo != slug {
		t.Errorf("status of the memory directory = lane %q repo %q, want the personal lane of %s", st.Lane, st.Repo, slug)
	}
	private := "---\nname: me\ntype: user\n---\nI review in the morning.\n"
	write(t, a.mem, "me.md", private)
	write(t, a.mem, "habits.md", "walks\n")
	write(t, a.mem, "team/style.md", "tabs\n")
	eventually(t, "me.md on B", fileIs(filepath.Join(b.mem, "me.md"), private))
	eventually(t, "team/style.md on B", fileIs(filepath.Join(b.mem, "team", "style.md"), "tabs\n"))
	if team := serverEntries(t, l.srv); len(team) != 1 || team["style.md"] != "tabs\n" {
		t.Errorf("team repo = %v, want style.md alone", team)
	}
	lane := l.laneEntries(t)
	eventually(t, "habits.md on B", fileIs(filepath.Join(b.mem, "habits.md"), "walks\n"))
	if len(lane) == 0 || len(lane) > 2 {
		t.Errorf("personal lane holds %d entries, want me.md and habits.md", len(lane))
	}
	for k, v := range lane {
		if strings.Contains(v, "morning") || strings.Contains(v, "tabs") || !strings.HasSuffix(k, ".age") {
			t.Errorf("personal lane holds %q = %q, want it sealed", k, v)
		}
	}
	write(t, b.mem, "me.md", private+"And tea.\n")
	eventually(t, "B's edit on A", fileIs(filepath.Join(a.mem, "me.md"), private+"And tea.\n"))
	if err := os.Remove(filepath.Join(b.mem, "me.md")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "me.md deleted on A", func() bool {
		_, err := os.Stat(filepath.Join(a.mem, "me.md"))
		return os.IsNotExist(err)
	})
}

// laneHolds reports whether alice's lane of the project holds path with
// content, opened with her key.
func (l *personalLab) laneHolds(t *testing.T, path, content string) bool {
	t.Helper()
	for k, v := range l.laneEntries(t) {
		n, _, err := personal.Open([]*personal.Key{l.key}, k, v)
		if err == nil && n.Path == path {
			return string(n.Content) == content
		}
	}
	return false
}

// holdsFile reports whether a file under dir holds content.
func holdsFile(dir, content string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, rerr := os.ReadFile(p)
			found = found || rerr == nil && string(data) == content
		}
		return nil
	})
	return found
}

// TestPersonalLaneConflict: a private note edited on two of alice's
// machines while one of them was off keeps both versions: the one the
// lane took first in both memory directories, the other in a conflict copy
// on the machine whose edit came second.
func TestPersonalLaneConflict(t *testing.T) { bubble(t, testPersonalLaneConflict) }

func testPersonalLaneConflict(t *testing.T) {
	l := newPersonalLab(t)
	a := l.machine(t, false, nil)
	stateB := t.TempDir()
	c := &counter{next: newTransport(t)}
	keepState := func(o *Options) { o.Open = testOpener(t, l.token, stateB, c, o.Logger) }
	b := l.machine(t, false, keepState)
	write(t, a.mem, "plans.md", "v1\n")
	eventually(t, "plans.md on B", fileIs(filepath.Join(b.mem, "plans.md"), "v1\n"))
	b.node.stop(t)
	write(t, a.mem, "plans.md", "from A\n")
	eventually(t, "A's edit in the lane", func() bool { return l.laneHolds(t, "plans.md", "from A\n") })
	write(t, b.mem, "plans.md", "from B\n")
	b.node = startNode(t, l.token, b.plan, keepState)
	eventually(t, "the lane's version on B", fileIs(filepath.Join(b.mem, "plans.md"), "from A\n"))
	eventually(t, "B's edit in a conflict copy", func() bool { return holdsFile(stateB, "from B\n") })
	if !fileIs(filepath.Join(a.mem, "plans.md"), "from A\n")() || !l.laneHolds(t, "plans.md", "from A\n") {
		t.Error("the conflict changed A's plans.md or the lane, want A's edit in both")
	}
}

// TestPersonalLaneKeyRotated: a key rotated on another machine stops the
// personal lane, which says why and writes nothing, while the team lane
// goes on; once the machine holds the new key, the lane starts again.
func TestPersonalLaneKeyRotated(t *testing.T) { bubble(t, testPersonalLaneKeyRotated) }

func testPersonalLaneKeyRotated(t *testing.T) {
	l := newPersonalLab(t)
	fast := func(o *Options) { o.CredentialCheck = 50 * time.Millisecond }
	a, b := l.machine(t, false, fast), l.machine(t, false, fast)
	write(t, a.mem, "before.md", "before\n")
	eventually(t, "before.md on B", fileIs(filepath.Join(b.mem, "before.md"), "before\n"))
	other, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	personaltest.Rotate(t, l.srv.URL, l.token, l.key, other, memsync.WithTransport(newTransport(t)))
	write(t, a.mem, "after.md", "after\n")
	st := a.node.settles(t, a.mem, "the personal lane stopped", func(r RepoStatus) bool { return r.State == StateLaneStopped })
	if !strings.Contains(st.Halted, "teammemd personal join") {
		t.Errorf("Halted = %q, want the fix named", st.Halted)
	}
	write(t, a.mem, "team/still.md", "still\n")
	eventually(t, "the team lane goes on", fileIs(filepath.Join(b.mem, "team", "still.md"), "still\n"))
	if lane := l.laneEntries(t); len(lane) != 1 {
		t.Errorf("personal lane holds %d entries after the rotation, want 1", len(lane))
	}
	if _, err := os.Stat(filepath.Join(b.mem, "after.md")); !os.IsNotExist(err) {
		t.Errorf("after.md reached B after the rotation: %v", err)
	}
	if err := a.keys.Save(context.Background(), l.srv.URL, personal.Keys{Current: other, Previous: []*personal.Key{l.key}}); err != nil {
		t.Fatal(err)
	}
	a.node.settles(t, a.mem, "the lane started again with the new key", func(r RepoStatus) bool {
		return r.State == StateIdle && r.LastPush != nil && r.LastPush.OK
	})
	if lane := personaltest.Entries(t, l.srv.URL, l.token, other.LaneID(slug), other, memsync.WithTransport(newTransport(t))); len(lane) != 2 {
		t.Errorf("the new key's lane holds %d entries, want before.md and after.md", len(lane))
	}
}

// TestPersonalLaneUserFiles syncs Claude Code's user-level files when
// asked to, and nothing else of its config directory.
func TestPersonalLaneUserFiles(t *testing.T) { bubble(t, testPersonalLaneUserFiles) }

func testPersonalLaneUserFiles(t *testing.T) {
	l := newPersonalLab(t)
	a, b := l.machine(t, true, nil), l.machine(t, true, nil)
	eventually(t, "the user files' lane live on B", func() bool { r, ok := b.node.repoStatus(b.home); return ok && r.Live })
	write(t, a.home, "CLAUDE.md", "be brief\n")
	write(t, a.home, "rules/go.md", "gofmt\n")
	write(t, a.home, "rules/frontend/react.md", "hooks first\n")
	write(t, a.home, "settings.md", "not a rule\n")
	eventually(t, "CLAUDE.md on B", fileIs(filepath.Join(b.home, "CLAUDE.md"), "be brief\n"))
	eventually(t, "rules/go.md on B", fileIs(filepath.Join(b.home, "rules", "go.md"), "gofmt\n"))
	eventually(t, "rules/frontend/react.md on B", fileIs(filepath.Join(b.home, "rules", "frontend", "react.md"), "hooks first\n"))
	if _, err := os.Stat(filepath.Join(b.home, "settings.md")); !os.IsNotExist(err) {
		t.Errorf("settings.md reached B through the user files' lane: %v", err)
	}
}

// TestPersonalLaneUserFilesNoNoteWarnings: Claude Code's user-level files
// are no memory notes, so the guards on a note's frontmatter say nothing
// of CLAUDE.md without one or of a rules file whose frontmatter gives
// paths; a team note without frontmatter still gets its warning.
func TestPersonalLaneUserFilesNoNoteWarnings(t *testing.T) {
	bubble(t, testPersonalLaneUserFilesNoNoteWarnings)
}

func testPersonalLaneUserFilesNoNoteWarnings(t *testing.T) {
	l := newPersonalLab(t)
	a, b := l.machine(t, true, nil), l.machine(t, true, nil)
	eventually(t, "the user files' lane live on B", func() bool { r, ok := b.node.repoStatus(b.home); return ok && r.Live })
	rule := "---\npaths:\n  - \"**/*.go\"\n---\nRun gofmt.\n"
	write(t, a.home, "CLAUDE.md", "Be brief.\n")
	write(t, a.home, "rules/go.md", rule)
	write(t, a.mem, "team/bare.md", "no frontmatter\n")
	eventually(t, "rules/go.md on B", fileIs(filepath.Join(b.home, "rules", "go.md"), rule))
	eventually(t, "CLAUDE.md on B", fileIs(filepath.Join(b.home, "CLAUDE.md"), "Be brief.\n"))
	st := a.node.settles(t, a.home, "the user files pushed", func(r RepoStatus) bool {
		return r.LastPush != nil && r.LastPush.OK && len(r.Pending) == 0
	})
	if len(st.Warnings) != 0 {
		t.Errorf("warnings on the user files = %+v, want none", st.Warnings)
	}
	a.node.settles(t, filepath.Join(a.mem, "team"), "the team note's warning", func(r RepoStatus) bool {
		return slices.ContainsFunc(r.Warnings, func(w Warning) bool {
			return w.Path == "bare.md" && strings.Contains(w.Message, "no frontmatter")
		})
	})
}

// TestPersonalLaneWrongKey: a machine whose key is not the server's stops
// its personal lane at the first pull and writes nothing, saying why; one
// whose stored key cannot be read does not start the lane, saying why; the
// team lane runs on both.
func TestPersonalLaneWrongKey(t *testing.T) { bubble(t, testPersonalLaneWrongKey) }

func testPersonalLaneWrongKey(t *testing.T) {
	l := newPersonalLab(t)
	a := l.machine(t, false, nil)
	write(t, a.mem, "mine.md", "mine\n")
	a.node.settles(t, a.mem, "mine.md pushed", func(r RepoStatus) bool { return r.LastPush != nil && len(r.Pending) == 0 })
	stranger, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	b := l.start(t, stranger, false, nil)
	st := b.node.settles(t, b.mem, "the lane stopped", func(r RepoStatus) bool { return r.State == StateLaneStopped })
	if !strings.Contains(st.Halted, "teammemd personal join") {
		t.Errorf("Halted = %q, want the fix named", st.Halted)
	}
	if _, err := os.Stat(filepath.Join(b.mem, "mine.md")); !os.IsNotExist(err) {
		t.Errorf("mine.md written by a machine with another key: %v", err)
	}

	c := &alice{home: t.TempDir()}
	c.mem = filepath.Join(c.home, "projects", "-src-app", "memory")
	ks := personal.NewKeyStore(t.TempDir(), "file")
	ks.Keyring = nil
	if err := ks.Save(context.Background(), l.srv.URL, personal.Keys{Current: l.key}); err != nil {
		t.Fatal(err)
	}
	file, _ := ks.Stored(l.srv.URL)
	if err := os.WriteFile(file, []byte("not a key file"), 0o600); err != nil {
		t.Fatal(err)
	}
	team := Spec{Repo: slug, Dir: filepath.Join(c.mem, "team"), Server: l.srv.URL, Source: "test"}
	if err := os.MkdirAll(team.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c.node = startNode(t, l.token, WithPersonal(Plan{Specs: []Spec{team}}, Personal{KeyFile: ks.Stored, Home: c.home}), nil)
	eventually(t, "the team lane live", func() bool { r, ok := c.node.repoStatus(team.Dir); return ok && r.Live })
	st2 := c.node.d.Status()
	if len(st2.Skipped) != 1 || !strings.Contains(st2.Skipped[0].Source, "personal lane of") || !strings.Contains(st2.Skipped[0].Reason, "personal key") {
		t.Errorf("skipped = %+v, want the personal lane with why", st2.Skipped)
	}
	if _, err := os.Stat(filepath.Join(c.mem, "mine.md")); !os.IsNotExist(err) {
		t.Errorf("mine.md written without a readable key: %v", err)
	}
}

// TestPersonalLaneRotatedHere: a rotation made on this machine stores the
// new key here before the server names it; the lane, opened with the old
// key, goes on with the new one at once and warns of no rotation
// elsewhere.
func TestPersonalLaneRotatedHere(t *testing.T) { bubble(t, testPersonalLaneRotatedHere) }

func testPersonalLaneRotatedHere(t *testing.T) {
	l := newPersonalLab(t)
	rec := newLogRecorder()
	a := l.machine(t, false, func(o *Options) { o.Logger = slog.New(rec) })
	write(t, a.mem, "before.md", "before\n")
	a.node.settles(t, a.mem, "before.md pushed", func(r RepoStatus) bool { return r.LastPush != nil && r.LastPush.OK && len(r.Pending) == 0 })
	other, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.keys.Save(context.Background(), l.srv.URL, personal.Keys{Current: other, Previous: []*personal.Key{l.key}}); err != nil {
		t.Fatal(err)
	}
	personaltest.Rotate(t, l.srv.URL, l.token, l.key, other, memsync.WithTransport(newTransport(t)))
	write(t, a.mem, "after.md", "after\n")
	eventually(t, "before.md and after.md in the new key's lane", func() bool {
		return len(personaltest.Entries(t, l.srv.URL, l.token, other.LaneID(slug), other, memsync.WithTransport(newTransport(t)))) == 2
	})
	if n := rec.count(msgLaneStopped); n != 0 {
		t.Errorf("the lane logged %q %d times for a rotation made here, want none", msgLaneStopped, n)
	}
}
