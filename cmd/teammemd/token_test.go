package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// runCLI runs teammemd with args and returns stdout, stderr and the exit
// status main would use.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx := context.Background()
	err := run(ctx, args, &out, &errOut)
	code = exitCode(ctx, err, &errOut)
	return out.String(), errOut.String(), code
}

// authenticate checks a secret against the database in dir.
func authenticate(t *testing.T, dir, secret string) (auth.Principal, error) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return auth.NewTokenAuthenticator(st).Authenticate(context.Background(), secret)
}

func TestTokenLifecycle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	stdout, stderr, code := runCLI(t, "token", "create", "--data", dir, "--subject", "alice", "--repos", "acme/*,acme/**")
	if code != 0 {
		t.Fatalf("token create exit = %d, stderr %q, want 0", code, stderr)
	}
	secret := strings.TrimSuffix(stdout, "\n")
	if !strings.HasPrefix(secret, auth.TokenPrefix) || strings.Contains(secret, "\n") {
		t.Fatalf("token create stdout = %q, want one line holding a %s secret", stdout, auth.TokenPrefix)
	}
	if !strings.Contains(stderr, "shown only once") || strings.Contains(stderr, secret) {
		t.Errorf("token create stderr = %q, want a shown-once note without the secret", stderr)
	}
	p, err := authenticate(t, dir, secret)
	if err != nil || p.Subject != "alice" || !p.Allows("acme/team/app", store.LevelWrite) || p.Allows("other/app", store.LevelRead) {
		t.Fatalf("Authenticate(created token) = %+v, %v, want alice with write on acme/**", p, err)
	}

	ro, stderr, code := runCLI(t, "token", "create", "--data", dir, "--subject", "ci bot", "--repos", "acme/app", "--read-only")
	if code != 0 {
		t.Fatalf("token create --read-only exit = %d, stderr %q", code, stderr)
	}
	p, err = authenticate(t, dir, strings.TrimSpace(ro))
	if err != nil || !p.Allows("acme/app", store.LevelRead) || p.Allows("acme/app", store.LevelWrite) {
		t.Errorf("Authenticate(read-only token) = %+v, %v, want read but not write on acme/app", p, err)
	}

	reviewer, stderr, code := runCLI(t, "token", "create", "--data", dir, "--subject", "carol", "--repos", "acme/docs", "--review")
	if code != 0 {
		t.Fatalf("token create --review exit = %d, stderr %q", code, stderr)
	}
	if p, err := authenticate(t, dir, strings.TrimSpace(reviewer)); err != nil || !p.Allows("acme/docs", store.LevelReview) || !p.Allows("acme/docs", store.LevelWrite) {
		t.Errorf("Authenticate(review token) = %+v, %v, want review and write on acme/docs", p, err)
	}
	if _, _, code := runCLI(t, "token", "create", "--data", dir, "--subject", "x", "--repos", "acme/docs", "--review", "--read-only"); code != 2 {
		t.Errorf("token create --review --read-only exit = %d, want 2", code)
	}

	list, stderr, code := runCLI(t, "token", "list", "--data", dir)
	if code != 0 {
		t.Fatalf("token list exit = %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID") {
		t.Fatalf("token list = %q, want a header and 3 tokens", list)
	}
	fields := strings.Fields(lines[1])
	id := fields[0]
	if fields[1] != "alice" || fields[2] != "acme/*:write,acme/**:write" || fields[len(fields)-1] != "-" {
		t.Errorf("token list line = %q, want alice, her grants, not revoked", lines[1])
	}
	if !strings.Contains(lines[2], "ci bot") || !strings.Contains(lines[2], "acme/app:read") {
		t.Errorf("token list line = %q, want the read-only ci bot token", lines[2])
	}
	if strings.Contains(list, secret) || strings.Contains(list, auth.HashToken(secret)) {
		t.Errorf("token list = %q, holds a secret or a hash", list)
	}

	if out, stderr, code := runCLI(t, "token", "revoke", "--data", dir, id); code != 0 || !strings.Contains(out, id) {
		t.Fatalf("token revoke %s = %q exit %d, stderr %q, want success", id, out, code, stderr)
	}
	if _, err := authenticate(t, dir, secret); err != auth.ErrUnauthenticated {
		t.Errorf("Authenticate(revoked token) error = %v, want ErrUnauthenticated", err)
	}
	list, _, _ = runCLI(t, "token", "list", "--data", dir)
	if line := strings.Split(list, "\n")[1]; strings.HasSuffix(strings.TrimSpace(line), " -") {
		t.Errorf("token list line after revoke = %q, want a revocation time", line)
	}
	if _, stderr, code := runCLI(t, "token", "revoke", "--data", dir, "nosuchid"); code != 1 || !strings.Contains(stderr, "no token") {
		t.Errorf("token revoke nosuchid exit = %d, stderr %q, want 1 and no token", code, stderr)
	}
}

// token revoke takes a token's secret too: it revokes the token the secret
// belongs to and names its ID. It never shows a secret, not even one it
// knows no token of.
func TestTokenRevokeBySecret(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	secret, stderr, code := runCLI(t, "token", "create", "--data", dir, "--subject", "alice", "--repos", "demo/**")
	if code != 0 {
		t.Fatalf("token create exit = %d, stderr %q, want 0", code, stderr)
	}
	secret = strings.TrimSpace(secret)
	p, err := authenticate(t, dir, secret)
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "token", "revoke", "--data", dir, secret)
	if code != 0 || !strings.Contains(out, "revoked token "+p.TokenID) || strings.Contains(out+stderr, secret) {
		t.Fatalf("token revoke SECRET = %q exit %d, stderr %q, want token %s revoked and the secret never shown", out, code, stderr, p.TokenID)
	}
	if _, err := authenticate(t, dir, secret); err != auth.ErrUnauthenticated {
		t.Errorf("Authenticate(token revoked by its secret) error = %v, want ErrUnauthenticated", err)
	}
	for _, arg := range []string{secret, auth.TokenPrefix + "UNKNOWNSECRET", "UNKNOWNSECRETWITHOUTPREFIX"} {
		out, stderr, code := runCLI(t, "token", "revoke", "--data", dir, arg)
		if code != 1 || !strings.Contains(stderr, "no token") || strings.Contains(out+stderr, arg) {
			t.Errorf("token revoke %.8s...: exit %d, output %q, want 1, no token, and the argument never shown", arg, code, out+stderr)
		}
	}
	if _, stderr, _ := runCLI(t, "token", "revoke", "--data", dir, "0123456789ab"); !strings.Contains(stderr, `no token with ID "0123456789ab"`) {
		t.Errorf("token revoke of an unknown ID: stderr %q, want the ID named", stderr)
	}
}

func TestTokenDataFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TEAMMEMD_DATA", dir)
	stdout, stderr, code := runCLI(t, "token", "create", "--subject", "bob", "--repos", "**")
	if code != 0 {
		t.Fatalf("token create exit = %d, stderr %q", code, stderr)
	}
	if p, err := authenticate(t, dir, strings.TrimSpace(stdout)); err != nil || !p.Allows("any/repo", store.LevelWrite) {
		t.Errorf("Authenticate(token in $TEAMMEMD_DATA) = %+v, %v, want bob with write on **", p, err)
	}
}

func TestTokenErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no subcommand", []string{"token"}, 2, "subcommand"},
		{"unknown subcommand", []string{"token", "rotate"}, 2, "rotate"},
		{"missing subject", []string{"token", "create", "--data", dir, "--repos", "acme/*"}, 2, "--subject is required"},
		{"blank subject", []string{"token", "create", "--data", dir, "--subject", "  ", "--repos", "acme/*"}, 2, "--subject is required"},
		{"control in subject", []string{"token", "create", "--data", dir, "--subject", "a\x1bb", "--repos", "acme/*"}, 2, "control character"},
		{"missing repos", []string{"token", "create", "--data", dir, "--subject", "a"}, 2, "--repos is required"},
		{"empty segment", []string{"token", "create", "--data", dir, "--subject", "a", "--repos", "acme//app"}, 2, "empty segment"},
		{"partial globstar", []string{"token", "create", "--data", dir, "--subject", "a", "--repos", "acme/app**"}, 2, "whole segment"},
		{"bad character", []string{"token", "create", "--data", dir, "--subject", "a", "--repos", "acme/a b"}, 2, "may hold only"},
		{"one segment", []string{"token", "create", "--data", dir, "--subject", "a", "--repos", "demo"}, 2, `repo pattern "demo" matches no repo: a repo slug has 2 to 8 segments`},
		{"only commas", []string{"token", "create", "--data", dir, "--subject", "a", "--repos", ",,"}, 2, "no repo patterns"},
		{"unknown flag", []string{"token", "create", "--data", dir, "--admin"}, 2, "admin"},
		{"stray argument", []string{"token", "list", "--data", dir, "extra"}, 2, "no arguments"},
		{"revoke without id", []string{"token", "revoke", "--data", dir}, 2, "one token ID"},
		{"list without database", []string{"token", "list", "--data", filepath.Join(dir, "none")}, 1, "no server database"},
	}
	for _, tt := range tests {
		_, stderr, code := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q, want exit %d and %q", tt.name, code, stderr, tt.code, tt.want)
		}
	}
	// Nothing was created by the refused commands.
	if out, _, code := runCLI(t, "token", "list", "--data", dir); code != 1 {
		t.Errorf("token list after refused creates = %q exit %d, want no database (exit 1)", out, code)
	}
}

// token create names the database it wrote to, and says so loudly when it
// had to create it: a mistyped --data makes a database no server uses.
func TestTokenCreateNamesDatabase(t *testing.T) {
	t.Setenv("TEAMMEMD_DATA", "")
	dir := filepath.Join(t.TempDir(), "data")
	db := filepath.Join(dir, sqlite.FileName)
	tests := []struct {
		name    string
		wantNew bool
	}{
		{"first token, no database yet", true},
		{"second token, database exists", false},
	}
	for _, tt := range tests {
		stdout, stderr, code := runCLI(t, "token", "create", "--data", dir, "--subject", "alice", "--repos", "acme/**")
		if code != 0 {
			t.Fatalf("%s: token create exit = %d, stderr %q, want 0", tt.name, code, stderr)
		}
		if !strings.HasPrefix(stdout, auth.TokenPrefix) || strings.Count(stdout, "\n") != 1 {
			t.Errorf("%s: token create stdout = %q, want the secret alone", tt.name, stdout)
		}
		if want := " for alice (acme/**:write) in " + db; !strings.Contains(stderr, want) {
			t.Errorf("%s: token create stderr = %q, want it to contain %q", tt.name, stderr, want)
		}
		gotNew := strings.Contains(stderr, "new server database created at "+db) &&
			strings.Contains(stderr, "a server started with another --data")
		if gotNew != tt.wantNew {
			t.Errorf("%s: token create stderr = %q, warns of a new database = %v, want %v", tt.name, stderr, gotNew, tt.wantNew)
		}
	}
}
