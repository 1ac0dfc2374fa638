package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// withPassword returns dbURL with a password in it: its own, or, on a test
// server that trusts every local connection, one it will ignore.
func withPassword(t *testing.T, dbURL string) (string, string) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if pw, ok := u.User.Password(); ok && pw != "" {
		return dbURL, pw
	}
	const pw = "Trusted-Ignores-Me-42"
	u.User = url.UserPassword(u.User.Username(), pw)
	return u.String(), pw
}

// TestServeOnPostgres runs the token commands and serve against a
// PostgreSQL database named by --store and by $TEAMMEMD_STORE, migrates
// with --migrate-only, and checks that the password never shows in any
// output or log line.
func TestServeOnPostgres(t *testing.T) {
	isolateConfig(t)
	db, pw := withPassword(t, pgtest.Database(t))
	var seen bytes.Buffer
	cli := func(args ...string) string {
		t.Helper()
		stdout, stderr, code := runCLI(t, args...)
		seen.WriteString(stdout + stderr)
		if code != 0 {
			t.Fatalf("teammemd %s: exit %d, stderr %q", strings.Join(args[:2], " "), code, stderr)
		}
		return stdout
	}
	cli("serve", "--migrate-only", "--store", db)
	secret := strings.TrimSpace(cli("token", "create", "--store", db, "--subject", "alice", "--repos", "**"))
	t.Setenv(storeEnv, db)
	cli("token", "create", "--subject", "bob", "--repos", "acme/*", "--read-only")
	list := cli("token", "list")
	if !strings.Contains(list, "alice") || !strings.Contains(list, "bob") {
		t.Fatalf("token list = %q, want alice and bob", list)
	}
	bobLine := strings.Split(list, "\n")[2]
	cli("token", "revoke", strings.Fields(bobLine)[0])
	if line := strings.Split(cli("token", "list", "--store", db), "\n")[2]; !strings.Contains(line, "bob") || strings.HasSuffix(strings.TrimSpace(line), " -") {
		t.Errorf("token list line after revoke = %q, want bob with a revocation time", line)
	}

	logs := &lineWriter{lines: make(chan string, 1000)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--config", writeConfig(t, "[server]\nscan_secrets = false\n")}, io.Discard, io.MultiWriter(logs, &syncWriter{w: &seen}))
	}()
	addr, _ := awaitLog(t, logs.lines, errc, "listening")["addr"].(string)
	base := "http://" + addr
	awaitReady(t, base)
	if code, body := putEntry(t, base, secret, "", "a.md", "on postgres"); code != http.StatusOK {
		t.Errorf("PUT = %d %s, want 200", code, body)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("serve after cancel = %v, want nil", err)
	}
	if strings.Contains(seen.String(), pw) {
		t.Errorf("the password shows in the output or logs:\n%s", seen.String())
	}
	if !strings.Contains(seen.String(), shownStore(db)) {
		t.Errorf("output never names the store %s:\n%s", shownStore(db), seen.String())
	}
}

// shownStore is the part of the store URL as teammemd shows it.
func shownStore(db string) string {
	u, _ := url.Parse(db)
	u.User = url.UserPassword(u.User.Username(), "xxxxx")
	return u.Host + u.Path
}

// syncWriter serialises writes from the server's goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// awaitReady polls /readyz until it answers 200.
func awaitReady(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/readyz never answered 200 (last: %v)", base, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// putEntry PUTs one entry to acme/app, with If-Match when ifMatch is set,
// and returns the status and body.
func putEntry(t *testing.T, base, token, ifMatch, key, value string) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(api.PutRequest{Entries: map[string]string{key: value}})
	req, err := http.NewRequest(http.MethodPut, base+api.Path+"?repo=acme%2Fapp", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if ifMatch != "" {
		req.Header.Set("If-Match", api.ETag(ifMatch))
	}
	return doRequest(t, req)
}

func doRequest(t *testing.T, req *http.Request) (int, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", req.Method, req.URL.Path, err)
		return 0, nil
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// replica is a "teammemd serve" child process.
type replica struct {
	base string
	cmd  *exec.Cmd
}

// startReplica starts this test binary as "teammemd serve" on db and
// returns once it listens; it is stopped with SIGTERM when the test ends.
func startReplica(t *testing.T, db string) *replica {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "serve", "--listen", "127.0.0.1:0", "--store", db, "--config", writeConfig(t, "[server]\nscan_secrets = false\n[server.rate_limit]\nrequests_per_second = -1\n"))
	cmd.Env = append(os.Environ(), demoEnv+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &replica{cmd: cmd}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("replica %s exit: %v", r.base, err)
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("replica %s did not stop within 30s of SIGTERM", r.base)
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == "listening" {
				addr <- fmt.Sprint(rec["addr"])
			}
		}
	}()
	select {
	case a := <-addr:
		r.base = "http://" + a
	case <-time.After(60 * time.Second):
		t.Fatal("replica never logged listening")
	}
	awaitReady(t, r.base)
	return r
}

// TestTwoReplicas runs two "teammemd serve" processes on one database:
// If-Match writers racing through both have exactly one winner a round
// and lose no update, and a change wait held on one is answered by a write
// through the other.
func TestTwoReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers: runs without -short")
	}
	isolateConfig(t)
	db := pgtest.Database(t)
	stdout, stderr, code := runCLI(t, "token", "create", "--store", db, "--subject", "ci", "--repos", "**")
	if code != 0 {
		t.Fatalf("token create: exit %d, %s", code, stderr)
	}
	token := strings.TrimSpace(stdout)
	replicas := []*replica{startReplica(t, db), startReplica(t, db)}

	current := raceIfMatch(t, replicas, token)
	waitAcrossReplicas(t, replicas, token, current)
	sameStoreIDAcrossReplicas(t, replicas, db)
}

// storeIDOf returns the store identity a replica names in /livez's header.
func storeIDOf(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/livez")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get(api.StoreIDHeader)
}

// sameStoreIDAcrossReplicas checks that both replicas name the database's
// identity, and, after "teammemd admin new-store-id", the new one within
// a few seconds.
func sameStoreIDAcrossReplicas(t *testing.T, replicas []*replica, db string) {
	t.Helper()
	want := pgStoreID(t, db)
	for i, r := range replicas {
		if got := storeIDOf(t, r.base); got != want {
			t.Errorf("replica %d names store %q, want the database's %q", i, got, want)
		}
	}
	if _, stderr, code := runCLI(t, "admin", "new-store-id", "--store", db); code != 0 {
		t.Fatalf("admin new-store-id: exit %d, %s", code, stderr)
	}
	fresh := pgStoreID(t, db)
	for i, r := range replicas {
		deadline := time.Now().Add(30 * time.Second)
		for storeIDOf(t, r.base) != fresh {
			if time.Now().After(deadline) {
				t.Fatalf("replica %d still names store %q 30 s after new-store-id, want %q", i, storeIDOf(t, r.base), fresh)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// raceIfMatch has writers race through both replicas with the same
// If-Match, round after round: each round has exactly one winner, and every
// winner's entry is kept. It returns the last winner's checksum.
func raceIfMatch(t *testing.T, replicas []*replica, token string) string {
	t.Helper()
	current := api.EmptyRepoChecksum
	const rounds, writers = 6, 6
	for round := range rounds {
		codes := make([]int, writers)
		bodies := make([][]byte, writers)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				codes[w], bodies[w] = putEntry(t, replicas[w%2].base, token, current, fmt.Sprintf("r%d/w%d.md", round, w), "x")
			})
		}
		wg.Wait()
		current = oneWinner(t, round, codes, bodies, current)
	}
	for i, r := range replicas {
		h := getHashes(t, r.base, token)
		if h.Version != rounds || h.Checksum != current || len(h.EntryChecksums) != rounds {
			t.Errorf("replica %d: v%d %s with %d entries, want v%d %s with %d", i, h.Version, h.Checksum, len(h.EntryChecksums), rounds, current, rounds)
		}
	}
	return current
}

// oneWinner checks a round's answers, 200 once and 412 otherwise, and
// returns the winner's checksum.
func oneWinner(t *testing.T, round int, codes []int, bodies [][]byte, current string) string {
	t.Helper()
	wins := 0
	for w, c := range codes {
		switch c {
		case http.StatusOK:
			wins++
			var pr api.PutResponse
			if err := json.Unmarshal(bodies[w], &pr); err != nil {
				t.Fatal(err)
			}
			current = pr.Checksum
		case http.StatusPreconditionFailed:
		default:
			t.Fatalf("round %d writer %d: PUT = %d %s, want 200 or 412", round, w, c, bodies[w])
		}
	}
	if wins != 1 {
		t.Fatalf("round %d: %d writers won, want exactly 1", round, wins)
	}
	return current
}

// waitAcrossReplicas holds a change wait on replica 2 and writes through
// replica 1: the wait answers with the new checksum.
func waitAcrossReplicas(t *testing.T, replicas []*replica, token, current string) {
	t.Helper()
	answer := make(chan api.HashesResponse, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, replicas[1].base+api.Path+"?repo=acme%2Fapp&view=hashes&wait=30", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("If-None-Match", api.ETag(current))
		code, body := doRequest(t, req)
		var h api.HashesResponse
		if code != http.StatusOK || json.Unmarshal(body, &h) != nil {
			t.Errorf("wait on replica 2 = %d %s, want 200 with hashes", code, body)
		}
		answer <- h
	}()
	awaitWaiting(t, replicas[1].base)
	code, body := putEntry(t, replicas[0].base, token, current, "woken.md", "by replica 1")
	var pr api.PutResponse
	if code != http.StatusOK || json.Unmarshal(body, &pr) != nil {
		t.Fatalf("PUT on replica 1 = %d %s, want 200", code, body)
	}
	select {
	case h := <-answer:
		if h.Checksum != pr.Checksum {
			t.Errorf("wait on replica 2 answered %s, want replica 1's new %s", h.Checksum, pr.Checksum)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("the wait on replica 2 was not answered after the write on replica 1")
	}
}

func getHashes(t *testing.T, base, token string) api.HashesResponse {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+api.Path+"?repo=acme%2Fapp&view=hashes", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	code, body := doRequest(t, req)
	var h api.HashesResponse
	if code != http.StatusOK || json.Unmarshal(body, &h) != nil {
		t.Fatalf("GET hashes = %d %s", code, body)
	}
	return h
}

// awaitWaiting polls /metrics until the server holds a change wait.
func awaitWaiting(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
		if _, body := doRequest(t, req); bytes.Contains(body, []byte("\nteammemd_change_waiters 1\n")) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never held the change wait", base)
}
