package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/watch"
)

// benchPair starts a server and two daemons with the default 2s debounce.
func benchPair(b *testing.B) (dirA, dirB string) {
	b.Helper()
	srv := servertest.Start(b)
	dirA, dirB = b.TempDir(), b.TempDir()
	for _, dir := range []string{dirA, dirB} {
		startBenchNode(b, srv, dir)
	}
	return dirA, dirB
}

func startBenchNode(b *testing.B, srv *servertest.Server, dir string) {
	startNode(b, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "bench"}}}, func(o *Options) {
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
		for i := range 1000 {
			waitFile(b, filepath.Join(dirB, fmt.Sprintf("r%d", round), fmt.Sprintf("f%04d.md", i)), body, 60*time.Second)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "last-file-ms")
	}
}
