package memsync

import (
	"context"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// nameCounter is a real scanner that counts the scans of each key name.
type nameCounter struct {
	*scan.Scanner
	mu    sync.Mutex
	names map[string]int
}

func (c *nameCounter) Key(ctx context.Context, key string) ([]scan.Finding, error) {
	c.mu.Lock()
	c.names[key]++
	c.mu.Unlock()
	return c.Scanner.Key(ctx, key)
}

func (c *nameCounter) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.names[key]
}

// A session shows and scrubs every key of the state; a clean name is
// scanned once for the engine's life, not in every session, while a name
// holding a secret is scanned again each time and stays held back.
func TestCleanKeyNamesScannedOnce(t *testing.T) {
	srv := servertest.Start(t)
	sc := &nameCounter{Scanner: realScanner(t), names: map[string]int{}}
	a := newPeer(t, srv.URL, srv.Token, sc)
	secretKey := "creds/" + scantest.AWSKey() + ".md"
	a.write(t, "a.md", "fine\n")
	a.write(t, "b.md", "also fine\n")
	a.write(t, secretKey, "plain notes\n")
	a.sync(t)
	secretScans := sc.count(secretKey)
	for i := range 3 {
		a.write(t, "a.md", "edit "+string(rune('1'+i))+"\n")
		if rep := a.sync(t); rep.PUTs != 1 {
			t.Fatalf("sync %d: %d PUTs, want the edit sent", i+2, rep.PUTs)
		}
	}
	for _, k := range []string{"a.md", "b.md"} {
		if n := sc.count(k); n != 1 {
			t.Errorf("the name %s was scanned %d times over 4 sessions, want once", k, n)
		}
	}
	if n := sc.count(secretKey); n <= secretScans {
		t.Errorf("the secret name was scanned %d times in the first session and %d in all, want scans in the later ones too", secretScans, n)
	}
	if got := serverEntries(t, srv); got[secretKey] != "" || got[api.RedactKey(secretKey)] != "" || len(got) != 2 {
		t.Errorf("server holds %v, want a.md and b.md alone", keysOf(got))
	}
}
