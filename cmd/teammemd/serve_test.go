package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/shell"
	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
)

// isolateConfig keeps the test away from the user's config and environment.
func isolateConfig(t testing.TB) {
	t.Helper()
	for _, name := range []string{"TEAMMEMD_CONFIG", "TEAMMEMD_LISTEN", "TEAMMEMD_DATA", "TEAMMEMD_STORE", "NOTIFY_SOCKET"} {
		t.Setenv(name, "")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
}

// lineWriter hands each complete log line to a channel.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.WriteString(line)
			return len(p), nil
		}
		select {
		case w.lines <- line:
		default:
		}
	}
}

// awaitLog returns the first log record with message msg.
func awaitLog(t *testing.T, lines <-chan string, errc <-chan error, msg string) map[string]any {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line := <-lines:
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("log line %q is not JSON: %v", line, err)
			}
			if rec["msg"] == msg {
				return rec
			}
		case err := <-errc:
			t.Fatalf("serve returned before logging %q: %v", msg, err)
		case <-timeout:
			t.Fatalf("serve never logged %q", msg)
		}
	}
}

func writeConfig(t testing.TB, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// shellWords splits line the way a POSIX shell does, by running it through
// sh in a directory holding a file, so an unquoted glob would expand.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a-file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `words() { printf '%s\0' "$@"; }; words `+line)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=/nonexistent", "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

func TestShellJoinRoundTrips(t *testing.T) {
	tests := [][]string{
		{"teammemd", "token", "create", "--data", "/var/lib/teammemd", "--repos", "**"},
		{"--data", "/home/me/my data", "--repos", "demo/**"},
		{"--data", `/tmp/it's "here" $HOME ~ ; & | \ * ? [a] (x) {y} #z`},
		{""},
		{"line\nbreak", "tab\there"},
	}
	for _, args := range tests {
		line := shell.Join(args...)
		if got := shellWords(t, line); !slices.Equal(got, args) {
			t.Errorf("sh splits shell.Join(%q) = %s into %q, want %q", args, line, got, args)
		}
	}
	if got, want := shell.Join("teammemd", "--data", "/srv/data_1"), "teammemd --data /srv/data_1"; got != want {
		t.Errorf("shell.Join(plain words) = %s, want %s (no quotes where none are needed)", got, want)
	}
}

func TestServeStartsAndStops(t *testing.T) {
	isolateConfig(t)
	data := filepath.Join(t.TempDir(), "team's data $HOME")
	cfg := writeConfig(t, "[server]\nlisten = \"127.0.0.1:1\"\nscan_secrets = false\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lineWriter{lines: make(chan string, 100)}
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--data", data, "--config", cfg}, io.Discard, logs)
	}()
	hint := awaitLog(t, logs.lines, errc, "no API tokens yet; create the first one")
	cmd, _ := hint["command"].(string)
	wantArgv := []string{"teammemd", "token", "create", "--data", data, "--subject", "you", "--repos", "**"}
	if got := shellWords(t, cmd); !slices.Equal(got, wantArgv) {
		t.Errorf("first-token hint command %s splits into %q, want %q", cmd, got, wantArgv)
	}
	addr, _ := awaitLog(t, logs.lines, errc, "listening")["addr"].(string)
	if !strings.HasPrefix(addr, "127.0.0.1:") || addr == "127.0.0.1:1" {
		t.Fatalf("listening on %q, want the flag's 127.0.0.1:<port> over the file's", addr)
	}
	for path, want := range map[string]int{"/livez": 200, "/readyz": 200, api.Path + "?repo=acme%2Fapp": 401} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s = %d, want %d", path, resp.StatusCode, want)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "teammemd.db")); err != nil {
		t.Errorf("database not in --data: %v", err)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("serve after cancel = %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop after cancel")
	}
}

func TestServeEnvOverridesFile(t *testing.T) {
	isolateConfig(t)
	t.Setenv("TEAMMEMD_LISTEN", "127.0.0.1:9")
	t.Setenv("TEAMMEMD_DATA", "/env/data")
	file := server.Config{Listen: "127.0.0.1:7", DataDir: "/file/data"}
	tests := []struct {
		flagListen, flagData, wantListen, wantData string
	}{
		{"", "", "127.0.0.1:9", "/env/data"},
		{"127.0.0.1:0", "/flag", "127.0.0.1:0", "/flag"},
	}
	for _, tt := range tests {
		sc := file
		_, err := (serveFlags{listen: tt.flagListen, data: tt.flagData}).apply(&sc)
		if err != nil || sc.Listen != tt.wantListen || sc.DataDir != tt.wantData {
			t.Errorf("serveFlags.apply(flags %q %q) = %q %q %v, want %q %q", tt.flagListen, tt.flagData, sc.Listen, sc.DataDir, err, tt.wantListen, tt.wantData)
		}
	}
	t.Setenv("TEAMMEMD_LISTEN", "")
	t.Setenv("TEAMMEMD_DATA", "")
	var sc server.Config
	if _, err := (serveFlags{}).apply(&sc); err != nil || sc.Resolve().Listen != server.DefaultListen || sc.DataDir != dataDir() {
		t.Errorf("serveFlags.apply() with nothing set = %q %q %v, want %q %q", sc.Resolve().Listen, sc.DataDir, err, server.DefaultListen, dataDir())
	}
}

// TestStorePrecedence resolves the store from flags, environment and file:
// at each level a PostgreSQL URL wins over a data directory, and a higher
// level wins over a lower one.
func TestStorePrecedence(t *testing.T) {
	const flagURL, envURL, fileURL = "postgres://flag/db", "postgres://env/db", "postgresql://file/db"
	tests := []struct {
		name                              string
		flagStore, flagData, env, envData string
		file                              server.Config
		want                              location
	}{
		{"nothing set", "", "", "", "", server.Config{}, location{dataDir: "DEFAULT"}},
		{"file data dir", "", "", "", "", server.Config{DataDir: "/file"}, location{dataDir: "/file"}},
		{"file store over file data", "", "", "", "", server.Config{DataDir: "/file", Store: fileURL}, location{url: fileURL}},
		{"env data over file store", "", "", "", "/env", server.Config{Store: fileURL}, location{dataDir: "/env"}},
		{"env store over env data", "", "", envURL, "/env", server.Config{}, location{url: envURL}},
		{"flag data over env store", "", "/flag", envURL, "", server.Config{}, location{dataDir: "/flag"}},
		{"flag store over everything", flagURL, "/flag", envURL, "/env", server.Config{Store: fileURL}, location{url: flagURL}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateConfig(t)
			t.Setenv(storeEnv, tt.env)
			t.Setenv("TEAMMEMD_DATA", tt.envData)
			if tt.want.dataDir == "DEFAULT" {
				tt.want.dataDir = dataDir()
			}
			sc := tt.file
			got, err := (serveFlags{data: tt.flagData, store: tt.flagStore}).apply(&sc)
			if err != nil || got != tt.want {
				t.Errorf("serveFlags.apply() store = %+v, %v, want %+v", got, err, tt.want)
			}
		})
	}
}

// TestStoreNotURL refuses a store that is not a PostgreSQL URL without
// echoing it, since it may hold a password.
func TestStoreNotURL(t *testing.T) {
	isolateConfig(t)
	const secret = "hunter2-not-a-url"
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"serve", "--store", "host=db password=" + secret}, exitConfig},
		{[]string{"token", "list", "--store", "mysql://u:" + secret + "@db/x"}, exitUsage},
	} {
		args := tt.args
		stdout, stderr, code := runCLI(t, args...)
		if code != tt.code || !strings.Contains(stderr, "must be a postgres:// or postgresql:// URL") {
			t.Errorf("teammemd %s = exit %d, stderr %q, want %d and the URL rule", args[0], code, stderr, tt.code)
		}
		if strings.Contains(stdout+stderr, secret) {
			t.Errorf("teammemd %s echoed the store value: %q", args[0], stdout+stderr)
		}
	}
}

func TestServeConfigErrors(t *testing.T) {
	isolateConfig(t)
	tests := []struct{ name, config string }{
		{"unknown key", "[server]\nlisten = \"127.0.0.1:0\"\nlisen = \"x\"\n"},
		{"unknown section key", "[server.limits]\nmax_entrys = 3\n"},
		{"invalid value", "[server.limits]\nmax_wait = \"1h\"\n"},
	}
	for _, tt := range tests {
		err := run(context.Background(), []string{"serve", "--config", writeConfig(t, tt.config), "--data", t.TempDir()}, io.Discard, io.Discard)
		if err == nil {
			t.Errorf("%s: serve = nil error, want one", tt.name)
		}
	}
	err := run(context.Background(), []string{"serve", "extra"}, io.Discard, io.Discard)
	var ue usageError
	if !errors.As(err, &ue) {
		t.Errorf("serve extra = %v, want a usage error", err)
	}
}

func TestExampleServerConfigLoads(t *testing.T) {
	isolateConfig(t)
	cfg, err := loadConfig(filepath.Join("..", "..", "configs", "server.toml"))
	if err != nil {
		t.Fatalf("loadConfig(configs/server.toml) = %v", err)
	}
	sc := cfg.Server
	if sc.Listen != "127.0.0.1:8787" || sc.OrganizationID != "acme" || !sc.ScanEnabled() ||
		sc.Limits != api.DefaultLimits() || sc.RateLimit.Burst != 100 || sc.History.KeepFor != 720*time.Hour ||
		sc.Deletions.KeepFor != 2160*time.Hour || sc.Deletions.MaxPerRepo != 2000 ||
		len(sc.Repos) != 1 || sc.Repos[0] != (server.RepoConfig{Name: "acme/handbook", Review: server.ReviewRequired}) {
		t.Errorf("configs/server.toml = %+v, want the documented values", sc)
	}
	rl, a := sc.RateLimit, sc.Auth
	if rl.FailedAuthPerSecond != server.DefaultFailedAuthPerSecond || rl.FailedAuthBurst != server.DefaultFailedAuthBurst ||
		len(sc.TrustedProxies) != 0 || a.FailureCacheTTL != auth.DefaultFailureCacheTTL || a.FailureCacheSize != auth.DefaultFailureCacheSize ||
		a.MaxChecksInFlight != auth.DefaultChecksInFlight || a.OIDC.JWKSRefreshInterval != auth.DefaultJWKSRefreshInterval || a.GitHub.ReadPublicRepos {
		t.Errorf("configs/server.toml bounds = %+v, trusted_proxies %q, auth %+v, want the defaults", rl, sc.TrustedProxies, a)
	}
}

// TestSdNotifyDatagram reads the datagram sdNotify sends and refuses a
// relative socket path.
func TestSdNotifyDatagram(t *testing.T) {
	isolateConfig(t)
	dir, err := os.MkdirTemp("", "tmd") // short: socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "notify.sock")
	conn, err := listenUnixgram(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", sock)
	if err := sdNotify("READY=1"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	n, err := conn.Read(buf)
	if err != nil || string(buf[:n]) != "READY=1" {
		t.Errorf("notify socket got %q, %v, want READY=1", buf[:n], err)
	}
	t.Setenv("NOTIFY_SOCKET", "relative")
	if err := sdNotify("READY=1"); err == nil {
		t.Error("sdNotify with a relative socket = nil error, want one")
	}
}

// listenUnixgram opens a datagram socket standing in for systemd's.
func listenUnixgram(path string) (*net.UnixConn, error) {
	return net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
}

// TestServeRefusesSecrets runs serve with its default secret scan, with a
// token made by "teammemd token create", and pushes a value holding an AWS
// access key id.
func TestServeRefusesSecrets(t *testing.T) {
	isolateConfig(t)
	data := t.TempDir()
	var secret bytes.Buffer
	if err := run(context.Background(), []string{"token", "create", "--data", data, "--subject", "alice", "--repos", "**"}, &secret, io.Discard); err != nil {
		t.Fatalf("token create: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lineWriter{lines: make(chan string, 100)}
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--data", data}, io.Discard, logs)
	}()
	awaitLog(t, logs.lines, errc, "secret scan on")
	addr, _ := awaitLog(t, logs.lines, errc, "listening")["addr"].(string)

	tests := []struct {
		value string
		want  int
	}{
		{"plain notes", http.StatusOK},
		{"aws_access_key_id = " + "AKIA" + "Z7QW3RTY5UIO2PLK", http.StatusUnprocessableEntity},
	}
	for _, tt := range tests {
		body, _ := json.Marshal(api.PutRequest{Entries: map[string]string{"a.md": tt.value}})
		req, err := http.NewRequest(http.MethodPut, "http://"+addr+api.Path+"?repo=acme%2Fapp", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(secret.String()))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("PUT %q = %d %s, want %d", tt.value, resp.StatusCode, got, tt.want)
		}
		if tt.want == http.StatusUnprocessableEntity && api.ParseError(resp.StatusCode, got).Code != api.CodeSecretDetected {
			t.Errorf("PUT with a secret: code %q, want %q", api.ParseError(resp.StatusCode, got).Code, api.CodeSecretDetected)
		}
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("serve after cancel = %v, want nil", err)
	}
}

// TestMigrateOnlySQLite creates the SQLite database and exits without
// serving.
func TestMigrateOnlySQLite(t *testing.T) {
	isolateConfig(t)
	data := filepath.Join(t.TempDir(), "data")
	if _, stderr, code := runCLI(t, "serve", "--migrate-only", "--data", data); code != 0 || !strings.Contains(stderr, "database schema is current") {
		t.Fatalf("serve --migrate-only = exit %d, stderr %q, want 0 and the schema logged current", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "teammemd.db")); err != nil {
		t.Errorf("serve --migrate-only made no database: %v", err)
	}
}

// A port already taken stops serve before it creates or opens a database.
func TestServePortBusyCreatesNothing(t *testing.T) {
	isolateConfig(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	data := filepath.Join(t.TempDir(), "data")
	var stderr bytes.Buffer
	err = run(context.Background(), []string{"serve", "--listen", ln.Addr().String(), "--data", data}, io.Discard, &stderr)
	if err == nil || !strings.Contains(stderr.String()+err.Error(), "address already in use") {
		t.Fatalf("serve on a busy port = %v, stderr %s; want address already in use", err, stderr.String())
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(data)
		t.Errorf("serve on a busy port left %s behind (%v, %d entries)", data, err, len(entries))
	}
}
