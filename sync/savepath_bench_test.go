package memsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/pausebench"
	"github.com/teammemd/teammemd/server/servertest"
)

// The steps of a save's way whose cost grew with the repo's notes.

// BenchmarkScanNamedOneOf2000 times the scan of a save's way in a team
// directory of 2,000 notes: one note edited, the watcher naming it alone,
// after a pause (pausebench.Run), as a daemon's run meets it.
func BenchmarkScanNamedOneOf2000(b *testing.B) {
	dir := b.TempDir()
	for i := range 2000 {
		name := filepath.Join(dir, fmt.Sprintf("note-%04d.md", i))
		if err := os.WriteFile(name, []byte(fmt.Sprintf("# note %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	td, err := openTeamDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer td.close()
	later := time.Now().Add(time.Hour) // no entry is racy
	prev, err := td.scanLocal(nil, later)
	if err != nil {
		b.Fatal(err)
	}
	edit := func(i int) localScan {
		if err := os.WriteFile(filepath.Join(dir, "note-0007.md"), []byte(fmt.Sprintf("# edit %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		return prev
	}
	pausebench.Run(b, "scan", edit, func(p localScan) error {
		sc, err := td.scanNamed(p, []string{"note-0007.md"}, later)
		prev = sc
		return err
	})
}

// BenchmarkWarningsOf2000 times the guards' warnings on a push's files
// (noteWarnings) in a team directory of 2,000 notes whose verdicts the
// guards keep, as after each push of a running daemon.
func BenchmarkWarningsOf2000(b *testing.B) {
	srv := servertest.Start(b)
	a := newPeer(b, srv.URL, srv.Token, nil)
	for i := range 2000 {
		a.write(b, fmt.Sprintf("note-%04d.md", i), goodNote)
	}
	if _, err := a.eng.Sync(context.Background()); err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for range b.N {
		_, err := a.eng.run(context.Background(), func(s *session) error {
			local, _, err := s.scan()
			if err != nil {
				return err
			}
			start := time.Now()
			err = s.noteWarnings(local)
			total += time.Since(start)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/check")
}
