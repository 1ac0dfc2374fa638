package memsync

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
)

// BenchmarkFirstSync1000x4KB measures a first sync of 1,000 files of 4 KB
// into an empty repo.
func BenchmarkFirstSync1000x4KB(b *testing.B) {
	value := strings.Repeat("memory line of about forty characters.\n", 110)[:4096]
	puts := 0
	for b.Loop() {
		b.StopTimer()
		srv := servertest.Start(b)
		p := newPeer(b, srv.URL, srv.Token, nil)
		for j := range 1000 {
			p.write(b, fmt.Sprintf("notes/%04d.md", j), value)
		}
		b.StartTimer()
		rep := p.sync(b)
		puts += rep.PUTs
	}
	b.ReportMetric(float64(puts)/float64(b.N), "PUTs/op")
}

// BenchmarkNoopSync2000 measures a sync of 2,000 unchanged files: no PUT,
// no file read.
func BenchmarkNoopSync2000(b *testing.B) {
	srv := servertest.Start(b)
	p := newPeer(b, srv.URL, srv.Token, nil)
	for j := range 2000 {
		p.write(b, fmt.Sprintf("notes/%04d.md", j), "short note\n")
	}
	p.sync(b)
	// Let every file age past the racy window so the index is trusted.
	old := time.Now().Add(-time.Hour)
	for j := range 2000 {
		setMtime(b, p, fmt.Sprintf("notes/%04d.md", j), old)
	}
	p.sync(b)
	puts := 0
	for b.Loop() {
		rep, err := p.eng.Sync(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		puts += rep.PUTs
	}
	b.ReportMetric(float64(puts)/float64(b.N), "PUTs/op")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/sync")
}

// BenchmarkPullChanged1000x4KB measures a pull that replaces 1,000 local
// files of 4 KB with a teammate's versions (none edited locally).
func BenchmarkPullChanged1000x4KB(b *testing.B) {
	value := strings.Repeat("memory line of about forty characters.\n", 110)[:4096]
	srv := servertest.Start(b)
	teammate := newPeer(b, srv.URL, srv.Token, nil)
	p := newPeer(b, srv.URL, srv.Token, nil)
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		for j := range 1000 {
			teammate.write(b, fmt.Sprintf("notes/%04d.md", j), fmt.Sprintf("%d\n%s", round, value))
		}
		teammate.sync(b)
		b.StartTimer()
		rep, err := p.eng.Pull(context.Background())
		if err != nil || len(rep.Pulled) != 1000 {
			b.Fatalf("Pull = %d pulled, %v; want 1000", len(rep.Pulled), err)
		}
	}
}
