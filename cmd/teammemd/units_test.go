package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/server/api"
)

// unitFile is a systemd unit as shipped: its leading comment lines and its
// settings, section by section, every value of a key in order.
type unitFile struct {
	header   []string
	sections map[string]map[string][]string
}

func readUnit(t *testing.T, path string) unitFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u := unitFile{sections: map[string]map[string][]string{}}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "#") && section == "":
			u.header = append(u.header, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[]")
			u.sections[section] = map[string][]string{}
		default:
			k, v, _ := strings.Cut(line, "=")
			u.sections[section][k] = append(u.sections[section][k], v)
		}
	}
	return u
}

// value is the last value of key in section, "" when unset.
func (u unitFile) value(section, key string) string {
	vs := u.sections[section][key]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// headerMode finds the mode the header's install steps give path: "install
// -m MODE ... path" (or "-d -m MODE path"); a plain "cp ... path" makes it
// 0644 under the usual umask.
func (u unitFile) headerMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	install := regexp.MustCompile(`install (?:-d )?-m (0[0-7]{3}) (?:\S+ )?` + regexp.QuoteMeta(path) + `(?:\s|$)`)
	cp := regexp.MustCompile(`cp \S+ ` + regexp.QuoteMeta(path) + `(?:\s|$)`)
	for _, line := range u.header {
		if m := install.FindStringSubmatch(line); m != nil {
			mode, _ := strconv.ParseUint(m[1], 8, 32)
			return os.FileMode(mode)
		}
		if cp.MatchString(line) {
			return 0o644
		}
	}
	t.Fatalf("the unit's header does not say how to install %s with its mode:\n%s", path, strings.Join(u.header, "\n"))
	return 0
}

// The shipped units pass systemd-analyze verify without a complaint, with
// the binary where their header installs it.
func TestUnitsVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed; install systemd to verify the units (.ci/run does)")
	}
	bin := teammemdBinary(t)
	dir := t.TempDir()
	server, err := os.ReadFile("../../systemd/teammemd-server.service")
	if err != nil {
		t.Fatal(err)
	}
	serverUnit := filepath.Join(dir, "teammemd-server.service")
	if err := os.WriteFile(serverUnit, bytes.ReplaceAll(server, []byte("/usr/local/bin/teammemd"), []byte(bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	verifyUnit(t, analyze, serverUnit, nil)
	withTLS := strings.ReplaceAll(string(server), "\n#LoadCredential=", "\nLoadCredential=")
	withTLS = strings.ReplaceAll(withTLS, "\n#Environment=TEAMMEMD_TLS_", "\nEnvironment=TEAMMEMD_TLS_")
	if withTLS == string(server) {
		t.Error("the server unit has no Direct TLS lines to uncomment")
	}
	if err := os.WriteFile(serverUnit, []byte(strings.ReplaceAll(withTLS, "/usr/local/bin/teammemd", bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	verifyUnit(t, analyze, serverUnit, nil)

	home, runtime := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".local", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(home, ".local", "bin", "teammemd")); err != nil {
		t.Fatal(err)
	}
	verifyUnit(t, analyze, "../../systemd/teammemd.service", []string{"--user"}, "HOME="+home, "XDG_RUNTIME_DIR="+runtime)
}

// verifyUnit runs systemd-analyze verify on unit and fails on any output:
// systemd only warns about an unknown or misspelt setting.
func verifyUnit(t *testing.T, analyze, unit string, flags []string, env ...string) {
	t.Helper()
	args := append(slices.Clone(flags), "verify", unit)
	cmd := exec.Command(analyze, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze %s = %v\n%s", strings.Join(args, " "), err, out)
	}
}

// The server unit's command line, started as an unprivileged user (as its
// DynamicUser is) on the directories its header lays out, reads its config
// and answers /readyz; the first token, created as root as the header says
// while the server runs, works. With its "Direct TLS" lines uncommented, it
// serves HTTPS from the credentials systemd would hand it.
func TestServerUnitRunsUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to start the server as another user: run as root, as .ci/run does in CI")
	}
	u := readUnit(t, "../../systemd/teammemd-server.service")
	if u.value("Service", "DynamicUser") != "yes" {
		t.Fatalf("the server unit does not run as a DynamicUser; this test stands for one")
	}
	root, err := os.MkdirTemp("", "teammemd-unit")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	remap := func(s string) string {
		s = strings.ReplaceAll(s, "/etc/teammemd", root+"/etc/teammemd")
		return strings.ReplaceAll(s, "/var/lib", root+"/var/lib")
	}
	layOutServerUnit(t, u, root, remap)
	u = loadCredentials(t, u, root)

	addr, stop := startUnitServer(t, u, remap)
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /readyz of the server run as the unit runs it = %d, want 200", resp.StatusCode)
	}
	token := firstTokenFromHeader(t, u, remap)
	body, status := putAsUnitClient(t, addr, token)
	var put api.PutResponse
	if err := json.Unmarshal(body, &put); status != http.StatusOK || err != nil || put.OrganizationID != "acme" {
		t.Errorf("PUT with the first token = %d %s, want 200 and organizationId acme from the config file", status, body)
	}
	stop()

	tlsUnit, pool := directTLS(t, root)
	addr, stop = startUnitServer(t, tlsUnit, remap)
	defer stop()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()
	resp, err = client.Get("https://" + addr + "/readyz")
	if err != nil {
		t.Fatalf("GET https://%s/readyz of the unit with Direct TLS: %v", addr, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET https://%s/readyz of the unit with Direct TLS = %d, want 200", addr, resp.StatusCode)
	}
}

// unitUser is the unprivileged user the server unit's command runs as.
const unitUser = 65534

// layOutServerUnit makes, under root, /etc/teammemd and its config (the
// example, its paths remapped), root's, with the modes the unit's header
// gives them, and the state directory systemd makes for the dynamic user.
func layOutServerUnit(t *testing.T, u unitFile, root string, remap func(string) string) {
	t.Helper()
	etc := filepath.Join(root, "etc", "teammemd")
	mkdirMode(t, etc, u.headerMode(t, "/etc/teammemd"))
	example, err := os.ReadFile("../../configs/server.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(etc, "config.toml"), []byte(remap(string(example))), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(etc, "config.toml"), u.headerMode(t, "/etc/teammemd/config.toml")); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(root, "var", "lib", u.value("Service", "StateDirectory"))
	stateMode, err := strconv.ParseUint(u.value("Service", "StateDirectoryMode"), 8, 32)
	if err != nil {
		t.Fatalf("StateDirectoryMode: %v", err)
	}
	mkdirMode(t, state, os.FileMode(stateMode))
	if err := os.Chown(state, unitUser, unitUser); err != nil {
		t.Fatal(err)
	}
}

// directTLS returns the server unit with its "Direct TLS" lines uncommented,
// and a pool trusting the certificate it makes for them, whose files it
// places where the unit's LoadCredential= lines read them.
func directTLS(t *testing.T, root string) (unitFile, *x509.CertPool) {
	t.Helper()
	data, err := os.ReadFile("../../systemd/teammemd-server.service")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\n#LoadCredential=", "\nLoadCredential=")
	text = strings.ReplaceAll(text, "\n#Environment=TEAMMEMD_TLS_", "\nEnvironment=TEAMMEMD_TLS_")
	path := filepath.Join(t.TempDir(), "teammemd-server.service")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	u := readUnit(t, path)
	sources := map[string]string{} // credential name to the file it loads
	for _, c := range u.sections["Service"]["LoadCredential"] {
		name, src, _ := strings.Cut(c, ":")
		sources[name] = src
	}
	if sources["tls-cert"] == "" || sources["tls-key"] == "" {
		t.Fatalf("the server unit's Direct TLS lines load %v, want the certificate and the key", sources)
	}
	tlsDir := filepath.Join(root, "etc", "teammemd", "tls")
	mkdirMode(t, tlsDir, 0o700)
	_, pool := testCert(t, underRoot(root, sources["tls-cert"]), underRoot(root, sources["tls-key"]))
	u = loadCredentials(t, u, root)
	return u, pool
}

// underRoot is the file at path /etc/teammemd/... as a test keeps it,
// under root.
func underRoot(root, path string) string {
	return strings.ReplaceAll(path, "/etc/teammemd", filepath.Join(root, "etc", "teammemd"))
}

// loadCredentials does what systemd does for the unit's LoadCredential=
// lines: it copies each file (under root) into a credentials directory
// readable by the service's user only, and points %d in the unit's
// environment at it.
func loadCredentials(t *testing.T, u unitFile, root string) unitFile {
	t.Helper()
	credDir, err := os.MkdirTemp(root, "credentials")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range u.sections["Service"]["LoadCredential"] {
		name, src, _ := strings.Cut(c, ":")
		content, err := os.ReadFile(underRoot(root, src))
		if err != nil {
			t.Fatalf("LoadCredential=%s: %v", c, err)
		}
		dst := filepath.Join(credDir, name)
		if err := os.WriteFile(dst, content, 0o400); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dst, unitUser, unitUser); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(credDir, unitUser, unitUser); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(credDir, 0o500); err != nil {
		t.Fatal(err)
	}
	env := slices.Clone(u.sections["Service"]["Environment"])
	for i, e := range env {
		env[i] = strings.ReplaceAll(e, "%d", credDir)
	}
	u.sections["Service"]["Environment"] = env
	return u
}

// startUnitServer starts the unit's ExecStart as unitUser with the unit's
// environment (paths remapped), on a free loopback port, and returns its
// address and a function that stops it.
func startUnitServer(t *testing.T, u unitFile, remap func(string) string) (string, func()) {
	t.Helper()
	argv := strings.Fields(u.value("Service", "ExecStart"))
	argv[0] = teammemdBinary(t)
	env := []string{"PATH=/usr/bin:/bin", "HOME=/", "TEAMMEMD_LISTEN=127.0.0.1:0"}
	for _, e := range u.sections["Service"]["Environment"] {
		env = append(env, strings.Fields(remap(e))...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: unitUser, Gid: unitUser}}
	logs := &lineWriter{lines: make(chan string, 100)}
	var stderr lockedbuf.Buffer
	cmd.Stderr = io.MultiWriter(logs, &stderr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited, done := make(chan error, 1), make(chan struct{})
	go func() {
		exited <- cmd.Wait()
		close(done)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			<-done
			if t.Failed() {
				t.Logf("the server's log:\n%s", stderr.String())
			}
		})
	}
	t.Cleanup(stop)
	addr, _ := awaitLog(t, logs.lines, exited, "listening")["addr"].(string)
	return addr, stop
}

func mkdirMode(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
}

// firstTokenFromHeader runs, as root, the token create command the unit's
// header documents and returns the token it prints.
func firstTokenFromHeader(t *testing.T, u unitFile, remap func(string) string) string {
	t.Helper()
	for _, line := range u.header {
		if !strings.HasPrefix(line, "teammemd token create ") && !strings.HasPrefix(line, "sudo teammemd token create ") {
			continue
		}
		words := shellWords(t, remap(strings.TrimPrefix(line, "sudo ")))
		out, err := exec.Command(teammemdBinary(t), words[1:]...).Output()
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return strings.TrimSpace(string(out))
	}
	t.Fatalf("the unit's header shows no first-token command:\n%s", strings.Join(u.header, "\n"))
	return ""
}

func putAsUnitClient(t *testing.T, addr, token string) ([]byte, int) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, "http://"+addr+api.Path+"?repo=acme%2Fapp",
		strings.NewReader(`{"entries":{"MEMORY.md":"# notes\n"}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), resp.StatusCode
}

// teammemd run with nothing to do exits with a status the user unit lists
// in RestartPreventExitStatus=, so systemd does not restart it every few
// seconds; the unit's header points at teammemd service install.
func TestUserUnitStopsWhenNothingToDo(t *testing.T) {
	isolateConfig(t)
	t.Setenv("TEAMMEMD_SERVER", "")
	u := readUnit(t, "../../systemd/teammemd.service")
	t.Chdir(t.TempDir())
	prevent := strings.Fields(u.value("Service", "RestartPreventExitStatus"))
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	for _, args := range [][]string{
		{"run", "--socket", sock},
		{"run", "--socket", sock, "--dir", t.TempDir(), "--repo", "acme/app"},
		{"run", "--socket", sock, "--config", writeConfig(t, "[daemon]\nrescan = 300\n")},
	} {
		// Bounded: a daemon that starts after all is stopped after 30 s.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var stderr bytes.Buffer
		code := exitCode(ctx, run(ctx, args, io.Discard, &stderr), &stderr)
		cancel()
		if code == 0 || code == 1 || code == 2 || !slices.Contains(prevent, strconv.Itoa(code)) {
			t.Errorf("teammemd %s: exit %d, want a status of its own in RestartPreventExitStatus=%v\n%s",
				strings.Join(args, " "), code, prevent, stderr.String())
		}
	}
	if !strings.Contains(strings.Join(u.header, "\n"), "teammemd service install") {
		t.Errorf("the user unit's header does not point at teammemd service install:\n%s", strings.Join(u.header, "\n"))
	}
}

// teammemd serve with a config it cannot use exits with a status the
// server unit lists in RestartPreventExitStatus=, as the user unit does for
// run: restarting cannot fix a config.
func TestServerUnitStopsOnBadConfig(t *testing.T) {
	isolateConfig(t)
	u := readUnit(t, "../../systemd/teammemd-server.service")
	prevent := strings.Fields(u.value("Service", "RestartPreventExitStatus"))
	for _, args := range [][]string{
		{"serve", "--data", t.TempDir(), "--config", writeConfig(t, "[server.limits]\nmax_entries = -1\n")},
		{"serve", "--data", t.TempDir(), "--config", writeConfig(t, "[server]\nlisen = \"127.0.0.1:0\"\n")},
		{"serve", "--data", t.TempDir(), "--config", filepath.Join(t.TempDir(), "missing.toml")},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != exitConfig || !slices.Contains(prevent, strconv.Itoa(code)) {
			t.Errorf("teammemd %s: exit %d, want %d, listed in the server unit's RestartPreventExitStatus=%v\n%s",
				strings.Join(args, " "), code, exitConfig, prevent, stderr)
		}
	}
}

// The server unit's sandbox, as systemd-analyze security rates it, stays
// at 2.5 or lower ("OK"): no capabilities, a system call filter, and the
// kernel, clock, host name and other processes out of its reach.
func TestServerUnitSecurityScore(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed; install systemd to rate the server unit's sandbox (.ci/run does)")
	}
	out, err := exec.Command(analyze, "security", "--offline=true", "../../systemd/teammemd-server.service").CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Overall exposure level for teammemd-server\.service: (\d+\.\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("systemd-analyze security printed no exposure level:\n%s", out)
	}
	if score, _ := strconv.ParseFloat(string(m[1]), 64); score > 2.5 {
		t.Errorf("the server unit's exposure level is %.1f, want 2.5 or lower:\n%s", score, out)
	}
}
