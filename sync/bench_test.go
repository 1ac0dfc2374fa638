package memsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// BenchmarkOneSaveIn1000 measures what one saved note costs both
// teammates' engines in a repo of 1,000 notes of 4 KB: A pushes the note,
// B pulls it with the hashes a change wait would have answered. Both are
// told of changes as a daemon's watcher tells them: A of the note saved,
// B of nothing (its pull's own write is no user change).
func BenchmarkOneSaveIn1000(b *testing.B) { benchOneSaveIn1000(b, false) }

// BenchmarkOneSaveIn1000CaseInsensitive is BenchmarkOneSaveIn1000 with
// the teammate's engine taking its directory for one on a file system
// that ignores case (forceCaseInsensitive), as on macOS.
func BenchmarkOneSaveIn1000CaseInsensitive(b *testing.B) { benchOneSaveIn1000(b, true) }

// benchOneSaveIn1000 saves one note of notes1000 on a teammate's side and
// pulls it with the change wait's hashes, a case-insensitive file system
// taken for the puller's when caseInsensitive is set.
func benchOneSaveIn1000(b *testing.B, caseInsensitive bool) {
	srv, a := notes1000(b)
	peerB := newPeer(b, srv.URL, srv.Token, nil)
	peerB.eng.NoteChanges(nil, true)
	peerB.sync(b)
	if caseInsensitive {
		forceCaseInsensitive(b, peerB)
	}
	ctx := context.Background()
	round := 0
	for b.Loop() {
		round++
		saveOneOf1000(ctx, b, a, round)
		h, err := peerB.eng.client.Hashes(ctx, testRepo)
		if err != nil {
			b.Fatal(err)
		}
		if rep, err := peerB.eng.PullChanged(ctx, h); err != nil || len(rep.Pulled) != 1 {
			b.Fatalf("PullChanged = %d pulled, %v; want 1", len(rep.Pulled), err)
		}
	}
}

// BenchmarkSaveAndProvenanceIn1000 measures what one saved note costs
// the saving daemon's engine in a repo of 1,000 notes of 4 KB: the push,
// then the provenance refresh the daemon runs once the repo is quiet. Its
// client names its instance, as the daemon's does.
func BenchmarkSaveAndProvenanceIn1000(b *testing.B) {
	_, a := notes1000(b, WithInstance())
	ctx := context.Background()
	if err := a.eng.RefreshProvenance(ctx); err != nil {
		b.Fatal(err)
	}
	round := 0
	for b.Loop() {
		round++
		saveOneOf1000(ctx, b, a, round)
		if err := a.eng.RefreshProvenance(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// note4KB is the value of each note of the 1,000-note benchmarks.
var note4KB = strings.Repeat("memory line of about forty characters.\n", 110)[:4096]

// notes1000 starts a server and a peer, its client made with opts, that
// synced 1,000 notes of 4 KB to it.
func notes1000(b *testing.B, opts ...ClientOption) (*servertest.Server, *peer) {
	srv := servertest.Start(b)
	a := newPeer(b, srv.URL, srv.Token, nil, opts...)
	for j := range 1000 {
		a.write(b, fmt.Sprintf("notes/%04d.md", j), note4KB)
	}
	a.eng.NoteChanges(nil, true)
	a.sync(b)
	return srv, a
}

// saveOneOf1000 edits one note of notes1000 and pushes it, the engine told
// of it as a daemon's watcher tells it.
func saveOneOf1000(ctx context.Context, b *testing.B, a *peer, round int) {
	a.write(b, "notes/0500.md", fmt.Sprintf("%d\n%s", round, note4KB))
	a.eng.NoteChanges([]string{"notes/0500.md"}, false)
	if rep, err := a.eng.Push(ctx); err != nil || len(rep.Pushed) != 1 {
		b.Fatalf("Push = %d pushed, %v; want 1", len(rep.Pushed), err)
	}
}

// BenchmarkSaveBehindSymlinkIn1000 measures what one saved note costs
// the saving daemon's engine in a repo of 1,000 notes of 4 KB while a
// teammate's note stays unapplied behind a symlink of the user's: the pull
// the daemon owes before each push, then the push.
func BenchmarkSaveBehindSymlinkIn1000(b *testing.B) {
	srv, a := notes1000(b)
	if err := os.Symlink(filepath.Join(b.TempDir(), "elsewhere.md"), filepath.Join(a.dir, "linked.md")); err != nil {
		b.Fatal(err)
	}
	teammate := newPeer(b, srv.URL, srv.Token, nil)
	teammate.write(b, "linked.md", "the teammate's\n")
	if _, err := teammate.eng.Push(context.Background()); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if rep, err := a.eng.Pull(ctx); err != nil || !rep.PullAgain {
		b.Fatalf("Pull = PullAgain %v, %v; want the note behind the symlink left unapplied", rep.PullAgain, err)
	}
	round := 0
	for b.Loop() {
		round++
		if rep, err := a.eng.Pull(ctx); err != nil || !rep.PullAgain {
			b.Fatalf("Pull = PullAgain %v, %v; want it still unapplied", rep.PullAgain, err)
		}
		saveOneOf1000(ctx, b, a, round)
	}
}
