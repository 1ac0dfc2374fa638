package memsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// saveStyle is one way an editor saves a file.
type saveStyle struct {
	name string
	save func(t testing.TB, path, data string)
}

var saveStyles = []saveStyle{
	{"in place", func(t testing.TB, path, data string) {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Errorf("save %s: %v", path, err)
		}
	}},
	{"by rename", func(t testing.TB, path, data string) {
		tmp := filepath.Join(filepath.Dir(path), ".editor-save.tmp")
		if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
			t.Errorf("save %s: %v", path, err)
			return
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Errorf("save %s: %v", path, err)
		}
	}},
}

// note returns the name of stress note i.
func note(i int) string { return fmt.Sprintf("n%02d.md", i) }

// appendLine saves key in p with line added to its content, by style.
func appendLine(t testing.TB, p *peer, key, line string, style saveStyle) {
	path := filepath.Join(p.dir, key)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read %s: %v", path, err)
		return
	}
	style.save(t, path, string(data)+line)
}

// allText returns every file's content under the given directories.
func allText(t *testing.T, dirs ...string) string {
	t.Helper()
	var b strings.Builder
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || e.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			b.Write(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// unexpected reports whether err is more than the contention of two
// engines pushing at once (a 412 after the last round, which the daemon
// retries) or the end of the test.
func unexpected(ctx context.Context, err error) bool {
	var ae *api.Error
	if err == nil || ctx.Err() != nil || (errors.As(err, &ae) && ae.Status == http.StatusPreconditionFailed) {
		return false
	}
	return true
}

// TestSavesRacingPullsAreNeverLost has a user save each note a teammate has
// just changed while the user's engine syncs in a loop: every save must end
// up somewhere (the server, a team directory or a conflict copy). It is
// bounded at stressSaves saves and two minutes.
func TestSavesRacingPullsAreNeverLost(t *testing.T) {
	const notes, stressSaves = 20, 300
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	for i := range notes {
		a.write(t, note(i), "start\n")
	}
	a.sync(t)
	b.sync(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	changed := make(chan string)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var syncErrs atomic.Int64
	wg.Go(func() { // the teammate: change a note, sync, tell the user
		defer close(changed)
		for i := 0; ctx.Err() == nil; i++ {
			k := note(i % notes)
			appendLine(t, a, k, fmt.Sprintf("<a%d>\n", i), saveStyles[0])
			if _, err := a.eng.Sync(ctx); unexpected(ctx, err) {
				syncErrs.Add(1)
				t.Errorf("teammate Sync: %v", err)
			}
			select {
			case changed <- k:
			case <-stop:
				return
			}
		}
	})
	wg.Go(func() { // the user's engine, syncing all the time
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := b.eng.Sync(ctx); unexpected(ctx, err) {
				syncErrs.Add(1)
				t.Errorf("user Sync: %v", err)
			}
		}
	})
	var saved []string
	for i := 0; i < stressSaves && ctx.Err() == nil; i++ {
		k, ok := <-changed
		if !ok {
			break
		}
		line := fmt.Sprintf("<b%d>\n", i)
		appendLine(t, b, k, line, saveStyles[i%2])
		saved = append(saved, line)
	}
	close(stop)
	wg.Wait()
	if syncErrs.Load() > 0 {
		t.FailNow()
	}
	for range 2 {
		b.sync(t)
		a.sync(t)
	}
	var server strings.Builder
	for _, v := range serverEntries(t, srv) {
		server.WriteString(v)
	}
	corpus := server.String() + allText(t, a.dir, b.dir, filepath.Join(a.state, "conflicts"), filepath.Join(b.state, "conflicts"))
	lost := 0
	for _, line := range saved {
		if !strings.Contains(corpus, line) {
			lost++
		}
	}
	t.Logf("%d saves raced the syncs", len(saved))
	if lost != 0 {
		t.Errorf("%d of %d saves lost, want 0", lost, len(saved))
	}
}
