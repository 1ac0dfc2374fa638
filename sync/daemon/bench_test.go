package daemon

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/watch"
)

var benchLog = flag.String("benchlog", "", "write the benchmark daemons' debug log, with timestamps, to this `file`")

// benchLogger returns the debug logger named by -benchlog, or nil.
func benchLogger(b *testing.B, node string) *slog.Logger {
	if *benchLog == "" {
		return nil
	}
	f, err := os.OpenFile(*benchLog, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return slog.New(slog.NewJSONHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug})).With("node", node)
}

// benchPair starts a server and two daemons with the default 2s debounce.
func benchPair(b *testing.B) (dirA, dirB string) {
	b.Helper()
	srv := servertest.Start(b)
	dirA, dirB = b.TempDir(), b.TempDir()
	a := startBenchNode(b, srv, dirA, "A")
	n := startBenchNode(b, srv, dirB, "B")
	// Measure from a settled pair: both done with their first pull and push.
	deadline := time.Now().Add(20 * time.Second)
	for {
		ra, _ := a.repoStatus(dirA)
		rb, _ := n.repoStatus(dirB)
		if ra.LastPush != nil && rb.LastPush != nil {
			return dirA, dirB
		}
		if time.Now().After(deadline) {
			b.Fatal("daemons did not settle within 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func startBenchNode(b *testing.B, srv *servertest.Server, dir, name string) *node {
	return startNode(b, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "bench"}}}, func(o *Options) {
		o.Logger = benchLogger(b, name)
		o.Watch = watch.Options{} // defaults: 2s debounce, 10s max wait
		o.WaitTimeout = 55 * time.Second
	})
}

// waitFile polls for path to hold want, every 5ms, for at most limit.
func waitFile(b *testing.B, path, want string, limit time.Duration) time.Time {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if got, err := os.ReadFile(path); err == nil && string(got) == want {
			return time.Now()
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.Fatalf("%s did not get its content within %s", path, limit)
	return time.Time{}
}

// BenchmarkSaveToTeammate measures the time from a save on A to the content
// on B's disk, over 20 single-file edits, with the default 2s debounce.
func BenchmarkSaveToTeammate(b *testing.B) {
	dirA, dirB := benchPair(b)
	for b.Loop() {
		var lat []time.Duration
		for i := range 20 {
			content := fmt.Sprintf("edit %d at %d\n", i, time.Now().UnixNano())
			start := time.Now()
			if err := os.WriteFile(filepath.Join(dirA, "MEMORY.md"), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, waitFile(b, filepath.Join(dirB, "MEMORY.md"), content, 30*time.Second).Sub(start))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*95/100].Milliseconds()), "p95-ms")
	}
}

// BenchmarkBurst measures a burst of 1,000 files of 4 KB written on A until
// the last one is on B.
func BenchmarkBurst(b *testing.B) {
	dirA, dirB := benchPair(b)
	body := strings.Repeat("x", 4095) + "\n"
	for round := 0; b.Loop(); round++ {
		start := time.Now()
		last := ""
		for i := range 1000 {
			last = fmt.Sprintf("r%d/f%04d.md", round, i)
			p := filepath.Join(dirA, filepath.FromSlash(last))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		written := time.Since(start)
		for i := range 1000 {
			waitFile(b, filepath.Join(dirB, fmt.Sprintf("r%d", round), fmt.Sprintf("f%04d.md", i)), body, 60*time.Second)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "last-file-ms")
		b.ReportMetric(float64(written.Milliseconds()), "write-ms")
	}
}
