package credential

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/sync/login"
)

const server = "https://mem.acme.com"

// files writes a token file for each name, holding "from-"+name.
func files(t *testing.T, names ...string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte("from-"+n+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out[n] = p
	}
	return out
}

// loggedIn is a rule whose store holds a login to server, kept in its
// file, whose token is "from-login".
func loggedIn(t *testing.T) Rule {
	t.Helper()
	logins := login.Store{Dir: t.TempDir()}
	rec := login.Record{Server: server, IDToken: "from-login", Expiry: time.Now().Add(time.Hour)}
	if err := logins.Save(rec); err != nil {
		t.Fatal(err)
	}
	return Rule{Logins: logins, Now: time.Now}
}

// An explicit token file and $TEAMMEMD_TOKEN win over a login to the
// repo's server, which wins over the general token file.
func TestPrecedence(t *testing.T) {
	f := files(t, "flag", "general", "repo")
	base := loggedIn(t)
	loginFile, _ := base.Logins.Path(server)
	tests := []struct {
		name, env, server, file, flag string
		kind                          Kind
		want, watch                   string
	}{
		{"flag file beats env", "from-env", server, f["flag"], f["flag"], ExplicitFile, "from-flag", f["flag"]},
		{"a repo's own file beats env", "from-env", server, f["repo"], "", ExplicitFile, "from-repo", f["repo"]},
		{"env beats the login", "from-env", server, f["general"], "", Env, "from-env", ""},
		{"login beats the general file", "", server, f["general"], "", Login, "from-login", loginFile},
		{"an explicit file beats the login", "", server, f["repo"], "", ExplicitFile, "from-repo", f["repo"]},
		{"no login for another server", "", "https://other.acme.com", f["general"], "", GeneralFile, "from-general", f["general"]},
		{"env alone", "from-env", "https://other.acme.com", "", "", Env, "from-env", ""},
	}
	for _, tt := range tests {
		r := base
		r.FlagFile, r.GeneralFile, r.EnvToken = tt.flag, f["general"], tt.env
		c := r.For(tt.server, tt.file)
		if c.Kind != tt.kind || c.File != tt.watch {
			t.Errorf("%s: For(%s, %s) = kind %d, file %q, want %d, %q", tt.name, tt.server, tt.file, c.Kind, c.File, tt.kind, tt.watch)
		}
		if got, err := c.Bearer(); err != nil || got != tt.want {
			t.Errorf("%s: Bearer() = %q, %v, want %q", tt.name, got, err, tt.want)
		}
	}
}

// Explicit(file) tells a file given with --token-file or named for one
// repo from the general one.
func TestExplicit(t *testing.T) {
	r := Rule{FlagFile: "/flag", GeneralFile: "/general"}
	for file, want := range map[string]bool{"/flag": true, "/repo": true, "/general": false, "": false} {
		if got := r.Explicit(file); got != want {
			t.Errorf("Explicit(%q) = %v, want %v", file, got, want)
		}
	}
	if got := (Rule{FlagFile: "/same", GeneralFile: "/same"}).Explicit("/same"); !got {
		t.Errorf("Explicit of the flag file that is also the general one = false, want true")
	}
}

// With nothing set there is no token, and the error says every way to
// give one; an empty or missing token file says so too.
func TestNoToken(t *testing.T) {
	f := files(t, "general")
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := Rule{Logins: login.Store{Dir: t.TempDir()}}
	tests := []struct {
		server, file string
		kind         Kind
		err          error
	}{
		{server, "", None, ErrNoToken},
		{"", "", None, ErrNoToken},
		{server, empty, ExplicitFile, ErrNoToken},
		{server, filepath.Join(t.TempDir(), "missing"), ExplicitFile, os.ErrNotExist},
	}
	for _, tt := range tests {
		c := r.For(tt.server, tt.file)
		if _, err := c.Source(); c.Kind != tt.kind || !errors.Is(err, tt.err) {
			t.Errorf("For(%q, %q) = kind %d, Source() error %v; want kind %d, %v", tt.server, tt.file, c.Kind, err, tt.kind, tt.err)
		}
		if id := c.ID(); id != "" {
			t.Errorf("For(%q, %q).ID() = %q, want none", tt.server, tt.file, id)
		}
	}
	r.GeneralFile = f["general"]
	if c := r.For("not a url", f["general"]); c.Kind != GeneralFile {
		t.Errorf("For of a server with no host = kind %d, want the general file", c.Kind)
	}
}

// ID digests the token, never shows it, and for a login stays the same
// whatever the login's token is.
func TestID(t *testing.T) {
	f := files(t, "a", "b")
	r := loggedIn(t)
	a, b := r.For(server, f["a"]), r.For(server, f["b"])
	if a.ID() == "" || a.ID() == b.ID() || len(a.ID()) != 16 {
		t.Errorf("IDs of two token files = %q, %q, want two different 16-digit digests", a.ID(), b.ID())
	}
	first := r.For(server, "").ID()
	if err := r.Logins.Save(login.Record{Server: server, IDToken: "refreshed", Expiry: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if again := r.For(server, "").ID(); again != first || again == "" {
		t.Errorf("login ID after a refresh = %q, want %q", again, first)
	}
	if env := (Rule{EnvToken: "from-env"}).For("", "").ID(); env == "" || env == a.ID() {
		t.Errorf("ID of $TEAMMEMD_TOKEN = %q, want a digest of its own", env)
	}
}

// A token that is not one word, such as a token file with a comment on a
// second line, is refused before it is sent, naming where it came from;
// the newline a file ends in is no second word.
func TestMalformedToken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	two := write("two-lines", "tmd_abc\n# comment\n")
	tests := []struct {
		name, env, file string
		want            error
		names           string
	}{
		{"second line", "", two, ErrMalformed, two},
		{"a space", "", write("space", "tmd_abc def\n"), ErrMalformed, "space"},
		{"a control character", "", write("control", "tmd_\x01abc"), ErrMalformed, "control"},
		{"env with a newline", "tmd_abc\nx", "", ErrMalformed, "$" + EnvToken},
		{"one line", "", write("good", "tmd_abc\n"), nil, ""},
	}
	for _, tt := range tests {
		c := Rule{FlagFile: tt.file, EnvToken: tt.env}.For(server, tt.file)
		_, err := c.Static()
		if !errors.Is(err, tt.want) || (err != nil && !strings.Contains(err.Error(), tt.names)) {
			t.Errorf("%s: Static() error = %v, want %v naming %q", tt.name, err, tt.want, tt.names)
		}
		if err != nil && strings.Contains(err.Error(), "tmd_abc") {
			t.Errorf("%s: Static() error %q shows the token", tt.name, err)
		}
	}
}

// A token file that gives no token is a *FileError naming the file, whose
// Changed tells a new content from the one that gave the error: a file
// created, written with other bytes or removed, never the same bytes
// written again.
func TestFileErrorChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	write := func(data string) {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fault := func(what string) *FileError {
		_, err := ReadFile(path)
		var fe *FileError
		if !errors.As(err, &fe) || fe.File != path {
			t.Fatalf("%s: ReadFile() error = %v, want a *FileError naming %s", what, err, path)
		}
		return fe
	}
	missing := fault("missing")
	if missing.Changed() {
		t.Error("missing file: Changed() = true before it exists, want false")
	}
	write("\n")
	if !missing.Changed() {
		t.Error("missing file: Changed() = false once it exists, want true")
	}
	empty := fault("empty")
	write("\n")
	if empty.Changed() {
		t.Error("empty file: Changed() = true after the same bytes were written again, want false")
	}
	write("tmd_abc\n# comment\n")
	if !empty.Changed() {
		t.Error("empty file: Changed() = false after a new content, want true")
	}
	twoLines := fault("two lines")
	if !errors.Is(twoLines, ErrMalformed) || twoLines.Changed() {
		t.Errorf("two lines: error %v, Changed() = %v; want ErrMalformed, unchanged", twoLines, twoLines.Changed())
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if !twoLines.Changed() {
		t.Error("two lines: Changed() = false after the file was removed, want true")
	}
}
