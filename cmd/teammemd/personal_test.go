package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/login"
	"github.com/teammemd/teammemd/sync/personal"
)

// personalMachine is one machine of the same user: its own config
// directory (and so its own key store) against the shared server.
type personalMachine struct {
	srv    *servertest.Server
	xdg    string
	config string
}

func newPersonalMachine(t *testing.T, srv *servertest.Server, team string) *personalMachine {
	t.Helper()
	text := fmt.Sprintf("[client]\nserver = %q\n", srv.URL)
	if team != "" {
		text += fmt.Sprintf("\n[[daemon.repo]]\ndir = %q\nrepo = \"acme/app\"\n", team)
	}
	return &personalMachine{srv: srv, xdg: t.TempDir(), config: writeConfig(t, text)}
}

// run runs "teammemd personal args..." on the machine, with stdin as a
// pipe holding stdin.
func (m *personalMachine) run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", m.xdg)
	t.Setenv(envToken, m.srv.Token)
	d := realDeps()
	d.secretInput = func() secretInput { return secretInput{stdin: strings.NewReader(stdin)} }
	var out, errOut bytes.Buffer
	ctx := context.Background()
	full := append([]string{"personal"}, args...)
	full = append(full, "--config", m.config, "--key-storage", "file")
	if args[0] == "status" {
		full = append(full, "--socket", filepath.Join(m.xdg, "no-daemon.sock"))
	}
	err := runWith(ctx, d, full, &out, &errOut)
	code = exitCode(ctx, err, &errOut)
	return out.String(), errOut.String(), code
}

// status is the machine's "personal status --json".
func (m *personalMachine) status(t *testing.T, wantCode int) personalStatusJSON {
	t.Helper()
	stdout, stderr, code := m.run(t, "", "status", "--json")
	if code != wantCode {
		t.Fatalf("personal status: exit %d, want %d\n%s%s", code, wantCode, stdout, stderr)
	}
	var st personalStatusJSON
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("personal status --json: %v\n%s", err, stdout)
	}
	return st
}

// keys is what the machine's key store holds.
func (m *personalMachine) keys(t *testing.T) (personal.Keys, error) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", m.xdg)
	return personalKeyStore(login.StorageFile).Load(context.Background(), m.srv.URL)
}

var recoveryCode = regexp.MustCompile(`(?m)^    ([2-9A-Z]{5}(?:-[2-9A-Z]{5}){4})$`)

func mustCode(t *testing.T, stdout string) string {
	t.Helper()
	m := recoveryCode.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no recovery code printed:\n%s", stdout)
	}
	return m[1]
}

// writeLane puts one sealed note into project's lane with k, as the
// daemon would.
func writeLane(t *testing.T, srv *servertest.Server, k *personal.Key, project, path, content string) error {
	t.Helper()
	c, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token}), memsync.WithRetry(0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	wire, value, err := k.Seal(personal.Note{Project: project, Path: path, Content: []byte(content)})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(api.PutRequest{Entries: map[string]string{wire: value}})
	_, err = c.PersonalPut(context.Background(), k.LaneID(project), k.ID(), "", body)
	return err
}

// init on one machine, join on another, status on both; a wrong code;
// a rotation that stops the other machine's lane until it joins again.
func TestPersonalInitJoinRotate(t *testing.T) {
	srv := servertest.Start(t)
	t.Setenv(envServer, "")
	t.Setenv("TEAMMEMD_CONFIG", "")
	team := filepath.Join(t.TempDir(), "-src-app", "memory", "team")
	a, b := newPersonalMachine(t, srv, team), newPersonalMachine(t, srv, "")

	stdout, stderr, code := a.run(t, "", "init")
	if code != 0 || !strings.Contains(stdout, "cannot be read by anyone, including the server's operator") || !strings.Contains(stdout, "What syncs") {
		t.Fatalf("init on A: exit %d\n%s%s", code, stdout, stderr)
	}
	code1 := mustCode(t, stdout)
	keysA, err := a.keys(t)
	if err != nil {
		t.Fatal(err)
	}
	if stdout, _, code := a.run(t, "", "init"); code != 0 || !strings.Contains(stdout, "already initialised") || recoveryCode.MatchString(stdout) {
		t.Errorf("init again on A: exit %d\n%s", code, stdout)
	}
	if _, stderr, code := b.run(t, "", "init"); code != exitFailure || !strings.Contains(stderr, "already initialised") || !strings.Contains(stderr, "personal join") {
		t.Errorf("init on B: exit %d, %s; want 1 saying to join", code, stderr)
	}

	if _, stderr, code := b.run(t, "WRONG-CODE1-23456-789AB-CDEFG\n", "join"); code != exitFailure || !strings.Contains(stderr, "does not open") || !strings.Contains(stderr, "nothing was written") {
		t.Errorf("join with a wrong code: exit %d, %s; want 1", code, stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(b.xdg, "teammemd", "personal")); len(entries) != 0 {
		t.Errorf("a wrong code left %d files in B's key store", len(entries))
	}
	if stdout, stderr, code := b.run(t, code1+"\n", "join", "--code-stdin"); code != 0 || !strings.Contains(stdout, "Joined: personal key "+keysA.Current.ID()) ||
		!strings.Contains(stdout, "No daemon runs on this machine yet: teammemd service install") {
		t.Fatalf("join on B: exit %d\n%s%s", code, stdout, stderr)
	}

	if err := writeLane(t, srv, keysA.Current, "acme/app", "me.md", "mine\n"); err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*personalMachine{"A": a, "B": b} {
		st := m.status(t, 0)
		if st.KeyID != keysA.Current.ID() || st.ServerKeyID != st.KeyID || len(st.Lanes) != 1 || st.Quota.UsedEntries != 1 || st.Problem != "" {
			t.Errorf("status on %s = %+v, want the one key and one lane", name, st)
		}
	}
	st := a.status(t, 0)
	if len(st.Projects) != 1 || st.Projects[0].Project != "acme/app" || st.Projects[0].Lane != st.Lanes[0].Lane || !st.Projects[0].OnServer {
		t.Errorf("status on A maps %+v, want acme/app to lane %s", st.Projects, st.Lanes[0].Lane)
	}

	stdout, stderr, code = a.run(t, "", "rotate-key")
	if code != 0 || !strings.Contains(stdout, "Every other machine must join again") || !strings.Contains(stdout, "1 lane moved") {
		t.Fatalf("rotate-key on A: exit %d\n%s%s", code, stdout, stderr)
	}
	code2 := mustCode(t, stdout)
	keysA2, _ := a.keys(t)
	keysB, _ := b.keys(t)
	if err := writeLane(t, srv, keysB.Current, "acme/app", "me.md", "from B\n"); !isAPICode(err, api.CodePersonalKeyChanged) {
		t.Errorf("a write with B's old key = %v, want 409 %s", err, api.CodePersonalKeyChanged)
	}
	if st := b.status(t, exitFailure); !strings.Contains(st.Problem, "rotated on another machine") {
		t.Errorf("status on B after the rotation: problem %q", st.Problem)
	}
	if _, _, code := b.run(t, code1+"\n", "join"); code != exitFailure {
		t.Errorf("join on B with the old code: exit %d, want 1", code)
	}
	if stdout, stderr, code := b.run(t, code2+"\n", "join"); code != 0 || !strings.Contains(stdout, keysA2.Current.ID()) {
		t.Fatalf("join on B with the new code: exit %d\n%s%s", code, stdout, stderr)
	}
	if st := b.status(t, 0); st.KeyID != keysA2.Current.ID() || len(st.Lanes) != 1 || st.Lanes[0].KeyID != st.KeyID {
		t.Errorf("status on B after joining again = %+v", st)
	}
}

func TestPersonalPassphrase(t *testing.T) {
	srv := servertest.Start(t)
	t.Setenv(envServer, "")
	t.Setenv("TEAMMEMD_CONFIG", "")
	a := newPersonalMachine(t, srv, "")
	if _, stderr, code := a.run(t, "short\n", "init", "--passphrase-stdin"); code != exitUsage || !strings.Contains(stderr, "at least 12") {
		t.Errorf("init with a short passphrase: exit %d, %s", code, stderr)
	}
	if _, err := a.keys(t); err == nil {
		t.Error("a refused init stored a key")
	}
	stdout, stderr, code := a.run(t, "correct horse battery staple\n", "init", "--passphrase-stdin")
	if code != 0 || recoveryCode.MatchString(stdout) || !strings.Contains(stdout, "wrapped to your passphrase") {
		t.Fatalf("init with a passphrase: exit %d\n%s%s", code, stdout, stderr)
	}
}

// The text status names each personal lane the daemon runs, and why one
// stopped.
func TestPrintPersonalStatus(t *testing.T) {
	st := personalStatusJSON{Server: "https://s", KeyID: "k1", KeptIn: "keyring", ServerKeyID: "k2",
		Lanes:    []api.LaneInfo{{Lane: "l1", KeyID: "k1", Entries: 2, Bytes: 3 << 10}},
		Quota:    api.Quota{MaxBytes: 64 << 20, MaxEntries: 10000, UsedBytes: 3 << 10, UsedEntries: 2},
		Projects: []personalProject{{Project: "acme/app", Dir: "/h/memory", Lane: "l1", OnServer: true, Entries: 2}},
		Daemon: &personalDaemonJSON{Running: true, PID: 7, Version: "v1", Detail: "1 personal lane running",
			Lanes: []personalDaemonLane{{Project: "acme/app", Dir: "/h/memory", State: "stopped", Stopped: "the personal key was rotated on another machine"}}},
		Problem: "the personal key was rotated on another machine; run teammemd personal join"}
	var b bytes.Buffer
	if err := printPersonalStatus(&b, st); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"key:        k1, kept in keyring\n", "lanes:      1 on the server, 2 of 10000 entries, 3.0 KiB of 64.0 MiB\n",
		"project acme/app in /h/memory: lane l1 (2 entries)\n",
		"  acme/app in /h/memory: stopped (the personal key was rotated on another machine)\n",
		"problem:    the personal key was rotated on another machine; run teammemd personal join\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("printPersonalStatus lacks %q:\n%s", want, b.String())
		}
	}
}

// join before any init, and any personal command on a server without the
// lane, say what to do once: the server's code, then one explanation.
func TestPersonalErrorsSayItOnce(t *testing.T) {
	t.Setenv(envServer, "")
	t.Setenv("TEAMMEMD_CONFIG", "")
	off := false
	tests := []struct {
		name string
		srv  *servertest.Server
		args []string
		want string
	}{
		{"join before init", servertest.Start(t), []string{"join"},
			"read the personal key: 404 personal_lane_not_initialized: no personal key on this server yet; run teammemd personal init on your first machine\n"},
		{"the lane off", servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.Personal.Enabled = &off })), []string{"join"},
			"read the personal key: 404 personal_lane_disabled: this server does not offer the personal lane; its operator turns it on with [server.personal] enabled = true\n"},
	}
	for _, tt := range tests {
		m := newPersonalMachine(t, tt.srv, "")
		_, stderr, code := m.run(t, "", tt.args...)
		if code != exitFailure || !strings.HasSuffix(stderr, tt.want) {
			t.Errorf("%s: personal %v = exit %d, %q; want exit %d ending %q", tt.name, tt.args, code, stderr, exitFailure, tt.want)
		}
	}
}

// init on a machine that holds a key the server does not (an init cut
// short, or the server's keys purged) stores that key on the server and
// says it is the one held here, not a new one.
func TestPersonalInitKeepsTheKeyHeldHere(t *testing.T) {
	srv := servertest.Start(t)
	t.Setenv(envServer, "")
	t.Setenv("TEAMMEMD_CONFIG", "")
	a := newPersonalMachine(t, srv, "")
	held, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", a.xdg)
	if err := personalKeyStore(login.StorageFile).Save(context.Background(), srv.URL, personal.Keys{Current: held}); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := a.run(t, "", "init")
	if code != 0 {
		t.Fatalf("init over a key held here: exit %d\n%s%s", code, stdout, stderr)
	}
	want := "Personal key " + held.ID() + ", the one this machine held already, kept in "
	if !strings.Contains(stdout, want) || strings.Contains(stdout, " made, ") {
		t.Errorf("init over a key held here printed:\n%s\nwant %q", stdout, want)
	}
	if st := a.status(t, 0); st.ServerKeyID != held.ID() {
		t.Errorf("the server's key after init = %q, want the one held here, %s", st.ServerKeyID, held.ID())
	}
}
