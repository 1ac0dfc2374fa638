package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// An org's worth of daemons: each teammate's daemon holds one change wait
// per repo. These benchmarks hold waiters change waits on one "teammemd
// serve" process with its default configuration, spread over
// waiters/DefaultMaxWaitersPerSubject token subjects so that neither
// max_waiters_per_subject nor the rate limit refuses one, then PUT once and
// report the time from the PUT's 200 to the last wait's answer, and the
// server's resident set while it holds them.
const (
	waiters     = server.DefaultMaxWaiters
	waitSubject = server.DefaultMaxWaitersPerSubject
	waitRepo    = "bench/waits"
	// dialsAtOnce bounds the connections being opened at once, so the
	// listen backlog never overflows into SYN retries.
	dialsAtOnce = 256
)

// BenchmarkWaits10k holds 10,000 change waits on a server on SQLite.
//
//	go test -run '^$' -bench 'Waits10k$' -benchtime 1x -count 3 ./cmd/teammemd/
func BenchmarkWaits10k(b *testing.B) {
	benchWaits(b, "--data", b.TempDir())
}

// BenchmarkWaits10kPostgres holds 10,000 change waits on a server on
// PostgreSQL ($TEAMMEMD_TEST_POSTGRES).
func BenchmarkWaits10kPostgres(b *testing.B) {
	benchWaits(b, "--store", pgtest.Database(b))
}

func benchWaits(b *testing.B, storeArgs ...string) {
	isolateConfig(b)
	raiseFileLimit(b, waiters+4096)
	tokens := make([]string, waiters/waitSubject)
	for i := range tokens {
		tokens[i] = benchToken(b, storeArgs, fmt.Sprintf("teammate%03d", i))
	}
	writer := benchToken(b, storeArgs, "writer")
	srv := startServeProcess(b, append([]string{"serve", "--listen", "127.0.0.1:0", "--config", writeConfig(b, "")}, storeArgs...))
	c := &http.Client{}
	current := benchPut(b, c, srv.base, writer, "0")
	idle := procMemory(b, srv.pid(), "VmRSS")
	var last, fromStart []time.Duration
	var rss int64
	var serverCPU, clientCPU time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		h := holdWaits(b, srv.base, tokens, current)
		rss = max(rss, procMemory(b, srv.pid(), "VmRSS"))
		cpu0, self0 := procCPU(b, srv.pid()), selfCPU(b)
		b.StartTimer()
		start := time.Now()
		current = benchPut(b, c, srv.base, writer, strconv.Itoa(i+1))
		acked := time.Now()
		arrivals := h.answers(b)
		b.StopTimer()
		serverCPU, clientCPU = serverCPU+procCPU(b, srv.pid())-cpu0, clientCPU+selfCPU(b)-self0
		lastAt := slices.MaxFunc(arrivals, func(x, y time.Time) int { return x.Compare(y) })
		last, fromStart = append(last, lastAt.Sub(acked)), append(fromStart, lastAt.Sub(start))
	}
	n := float64(b.N)
	b.ReportMetric(float64(slices.Max(last).Microseconds())/1000, "last-after-200-ms")
	b.ReportMetric(float64(slices.Max(fromStart).Microseconds())/1000, "last-after-put-start-ms")
	b.ReportMetric(float64(idle)/(1<<20), "rss-idle-MB")
	b.ReportMetric(float64(rss)/(1<<20), "rss-holding-MB")
	b.ReportMetric(float64(procMemory(b, srv.pid(), "VmHWM"))/(1<<20), "peak-rss-MB")
	b.ReportMetric(float64(serverCPU.Milliseconds())/n, "server-cpu-ms/op")
	b.ReportMetric(float64(clientCPU.Milliseconds())/n, "client-cpu-ms/op")
}

// procCPU returns the CPU time, user and system, process pid has used.
func procCPU(b *testing.B, pid int) time.Duration {
	d, err := proclab.CPUTime(pid)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// selfCPU returns the CPU time this process has used.
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// raiseFileLimit raises this process's open file limit to at least n, and
// so the server's, which inherits it; the server's systemd unit sets
// LimitNOFILE=65536.
func raiseFileLimit(b *testing.B, n uint64) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Fatal(err)
	}
	if lim.Cur >= n {
		return
	}
	want := syscall.Rlimit{Cur: n, Max: max(lim.Max, n)}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
		b.Skipf("cannot raise the open file limit from %d to %d: %v; raise the hard limit (ulimit -Hn) to run this benchmark", lim.Cur, n, err)
	}
	b.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim) })
}

// benchToken creates a token for subject on every repo.
func benchToken(b *testing.B, storeArgs []string, subject string) string {
	var out, errOut bytes.Buffer
	args := append(append([]string{"token", "create"}, storeArgs...), "--subject", subject, "--repos", "**")
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		b.Fatalf("token create: %v\n%s", err, errOut.String())
	}
	return strings.TrimSpace(out.String())
}

// serveProcess is a "teammemd serve" child process.
type serveProcess struct {
	base string
	cmd  *exec.Cmd
}

func (p *serveProcess) pid() int { return p.cmd.Process.Pid }

// startServeProcess starts this test binary as teammemd with args and
// returns once it listens; it is stopped with SIGTERM when the benchmark
// ends. Its log is read and dropped.
func startServeProcess(b *testing.B, args []string) *serveProcess {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), demoEnv+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &serveProcess{cmd: cmd}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			b.Errorf("server did not stop within 30s of SIGTERM")
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "listening" {
				addr <- rec.Addr
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr) // the access log, unread
	}()
	select {
	case a := <-addr:
		p.base = "http://" + a
	case <-time.After(60 * time.Second):
		b.Fatal("server never logged listening")
	}
	return p
}

// benchPut writes one entry and returns the repo's new checksum.
func benchPut(b *testing.B, c *http.Client, base, token, value string) string {
	body := fmt.Sprintf(`{"entries":{"a.md":%q}}`, value)
	code, out := benchRequest(b, c, http.MethodPut, base+api.Path+"?repo="+waitRepo, token, body, "")
	if code != http.StatusOK {
		b.Fatalf("PUT = %d %s", code, out)
	}
	var r api.PutResponse
	if err := json.Unmarshal(out, &r); err != nil {
		b.Fatal(err)
	}
	return r.Checksum
}

func benchRequest(b *testing.B, c *http.Client, method, url, token, body, inm string) (int, []byte) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if inm != "" {
		req.Header.Set("If-None-Match", api.ETag(inm))
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, []byte(err.Error())
	}
	return resp.StatusCode, out
}

// heldWaits is a set of change waits in flight.
type heldWaits struct {
	wg      sync.WaitGroup
	arrived chan time.Time
	failed  chan string
}

// holdWaits opens one change wait per teammate, waiters in all, each on a
// connection of its own and renewed should it time out, and returns once
// the server holds them all. It speaks HTTP/1.1 on the connection itself,
// with one goroutine and a small buffer a wait, so that the client spends
// as little of the machine's CPU as it can while the server answers.
func holdWaits(b *testing.B, base string, tokens []string, current string) *heldWaits {
	h := &heldWaits{arrived: make(chan time.Time, waiters), failed: make(chan string, waiters)}
	addr := strings.TrimPrefix(base, "http://")
	dials := make(chan struct{}, dialsAtOnce)
	for i := range waiters {
		req := "GET " + api.Path + "?repo=" + waitRepo + "&view=hashes&wait=60 HTTP/1.1\r\nHost: " + addr +
			"\r\nAuthorization: Bearer " + tokens[i/waitSubject] + "\r\nIf-None-Match: " + api.ETag(current) + "\r\n\r\n"
		h.wg.Go(func() {
			if err := holdWait(addr, req, dials, h.arrived); err != nil {
				h.failed <- fmt.Sprintf("wait %d: %v", i, err)
			}
		})
	}
	awaitHeld(b, base, waiters, h)
	return h
}

// holdWait sends req on a new connection to addr, again on each 304, and
// records when a 200 arrives.
func holdWait(addr, req string, dials chan struct{}, arrived chan<- time.Time) error {
	dials <- struct{}{}
	conn, err := net.DialTimeout("tcp", addr, 30*time.Second)
	<-dials
	if err != nil {
		return err
	}
	defer conn.Close()
	br := bufio.NewReaderSize(conn, 1024)
	for {
		if _, err := io.WriteString(conn, req); err != nil {
			return err
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case err != nil:
			return err
		case resp.StatusCode == http.StatusOK:
			arrived <- time.Now()
			return nil
		case resp.StatusCode != http.StatusNotModified:
			return fmt.Errorf("%d %s", resp.StatusCode, body)
		}
	}
}

// answers waits for every wait's answer and returns their arrival times.
func (h *heldWaits) answers(b *testing.B) []time.Time {
	h.wg.Wait()
	close(h.arrived)
	close(h.failed)
	for f := range h.failed {
		b.Error(f)
	}
	var at []time.Time
	for t := range h.arrived {
		at = append(at, t)
	}
	if len(at) != waiters {
		b.Fatalf("%d of %d waits answered 200", len(at), waiters)
	}
	return at
}

// awaitHeld polls /metrics until the server holds n change waits, for
// at most five minutes, failing early when a wait was refused.
func awaitHeld(b *testing.B, base string, n int, h *heldWaits) {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if got := changeWaiters(b, base); got >= n {
			return
		}
		select {
		case f := <-h.failed:
			b.Fatal(f)
		default:
		}
		if time.Now().After(deadline) {
			b.Fatalf("the server holds %d change waits after 5 minutes, want %d", changeWaiters(b, base), n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// changeWaiters reads teammemd_change_waiters from /metrics.
func changeWaiters(b *testing.B, base string) int {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "teammemd_change_waiters "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				b.Fatal(err)
			}
			return int(f)
		}
	}
	return 0
}

// procMemory returns a field of /proc/<pid>/status in bytes: VmRSS, the
// resident set now, or VmHWM, its peak.
func procMemory(b *testing.B, pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatalf("/proc/%d/status has no %s", pid, field)
	return 0
}
