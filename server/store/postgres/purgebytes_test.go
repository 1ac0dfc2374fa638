package postgres

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// secretValue returns about size bytes of text that PostgreSQL cannot
// compress, with marker in it every 1,000 bytes or so, so that a copy of
// any part of it, split across TOAST chunks or not, shows.
func secretValue(t *testing.T, marker string, size int) string {
	t.Helper()
	var b strings.Builder
	for b.Len() < size {
		noise := make([]byte, 750)
		if _, err := rand.Read(noise); err != nil {
			t.Fatal(err)
		}
		b.WriteString(marker + " " + base64.StdEncoding.EncodeToString(noise) + "\n")
	}
	return b.String()
}

// TestPurgedBytesGoWithTheDocumentedSteps writes secrets to a key, in a
// revision replaced since and in the live one, purges every revision of
// it with the live one (admin purge --all --include-live), and runs the
// steps docs/10-security.md gives: VacuumPurged, then a CHECKPOINT as a
// superuser (TestSecurityChapterGivesThePurgeSteps keeps the chapter so).
// No file of the database (its tables, their TOAST tables and indexes)
// may still hold a secret's bytes, neither in a dead row version of the
// entries or revisions table nor in TOAST. Values small enough to sit in
// the row and large enough to be stored out of line are both tried.
func TestPurgedBytesGoWithTheDocumentedSteps(t *testing.T) {
	for _, size := range []int{1_000, 20_000} {
		db := pgtest.Database(t)
		cluster := pgtest.LocalCluster(t, db)
		s := openURL(t, db)
		marker := "SECRET-" + rand.Text()[:12]
		at := time.Now()
		for i, v := range []string{secretValue(t, marker, size), secretValue(t, marker, size)} {
			_, err := s.Apply(context.Background(), store.Write{Repo: "acme/app", Subject: "ann", Time: at.Add(time.Duration(i) * time.Second),
				Entries: map[string]string{"a.md": v, "b.md": "b"}})
			if err != nil {
				t.Fatal(err)
			}
		}
		cluster.Superuser(t, db, "CHECKPOINT")
		if got := pgtest.FilesHolding(t, cluster.DatabaseDir, []byte(marker)); len(got) == 0 {
			t.Fatalf("size %d: no file of the database holds the secret after it was written; the test cannot see it", size)
		}
		_, err := s.Purge(context.Background(), store.Purge{Repo: "acme/app", Key: "a.md", IncludeLive: true, Actor: "root"})
		if err != nil {
			t.Fatal(err)
		}
		pgtest.Exec(t, db, VacuumPurged)
		cluster.Superuser(t, db, "CHECKPOINT")
		if got := pgtest.FilesHolding(t, cluster.DatabaseDir, []byte(marker)); len(got) > 0 {
			t.Errorf("size %d: after the purge and the documented steps %v still hold the secret", size, got)
		}
	}
}
