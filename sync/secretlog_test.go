package memsync

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/servertest"
)

// A file holding a secret is logged once per content: syncs that find it
// unchanged say nothing more, a change to it is logged again, and so is
// the secret written back after the file was clean.
func TestSecretLoggedOncePerContent(t *testing.T) {
	srv := servertest.Start(t)
	var logs bytes.Buffer
	a := newPeer(t, srv.URL, srv.Token, realScanner(t))
	a.eng.log = slog.New(slog.NewTextHandler(&logs, nil))
	warnings := func() int { return strings.Count(logs.String(), `msg="secret found; file not pushed"`) }
	steps := []struct {
		what    string
		content string // keys.md's content, "" to leave it
		want    int    // warnings logged so far
	}{
		{"first sync", scantest.AWSNote(scantest.AWSKey()), 1},
		{"unchanged", "", 1},
		{"unchanged again", "", 1},
		{"another secret", scantest.AWSNote(scantest.AWSKey()) + "more\n", 2},
		{"cleaned", "no secret now\n", 2},
		{"the secret back", scantest.AWSNote(scantest.AWSKey()), 3},
	}
	for _, st := range steps {
		if st.content != "" {
			a.write(t, "keys.md", st.content)
		}
		a.sync(t)
		if got := warnings(); got != st.want {
			t.Errorf("after %s: %d secret warnings logged, want %d\n%s", st.what, got, st.want, logs.String())
		}
	}
}

// A file that cannot sync is logged, with the reason, once while the
// reason lasts: syncs that find it so again say nothing more, a new reason
// is logged, and so is the file gone bad again after it synced.
func TestSkippedLoggedOncePerReason(t *testing.T) {
	srv := servertest.Start(t)
	var logs bytes.Buffer
	a := newPeer(t, srv.URL, srv.Token, nil)
	a.eng.log = slog.New(slog.NewTextHandler(&logs, nil))
	warnings := func() int { return strings.Count(logs.String(), `msg="file not synced" key=big.md`) }
	big := strings.Repeat("x", MaxFileBytes+1)
	steps := []struct {
		what    string
		content string // big.md's content, "" to leave it
		want    int    // warnings logged so far
	}{
		{"first sync", big, 1},
		{"unchanged", "", 1},
		{"larger, the same reason", big + "y", 2},
		{"unchanged again", "", 2},
		{"small", "fits now\n", 2},
		{"too large again", big, 3},
	}
	for _, st := range steps {
		if st.content != "" {
			a.write(t, "big.md", st.content)
		}
		a.sync(t)
		if got := warnings(); got != st.want {
			t.Errorf("after %s: %d warnings logged, want %d\n%s", st.what, got, st.want, logs.String())
		}
	}
}

// A conflict copy is logged where no report is shown (the daemon), and
// only listed where one is (teammemd sync and conflicts resolve print the
// report's conflict line): the log line there said the same thing twice.
func TestConflictLoggedOnlyWithoutReport(t *testing.T) {
	for _, shown := range []bool{false, true} {
		srv := servertest.Start(t)
		var logs bytes.Buffer
		a := newPeer(t, srv.URL, srv.Token, nil)
		b := newPeer(t, srv.URL, srv.Token, nil)
		b.eng.log = slog.New(slog.NewTextHandler(&logs, nil))
		b.eng.reportShown = shown
		rep := pullConflict(t, a, b)
		assertConflict(t, rep, "x.md", "from b\n")
		want := 1
		if shown {
			want = 0
		}
		if got := strings.Count(logs.String(), `msg="kept conflicting version"`); got != want {
			t.Errorf("report shown %v: %d conflict lines logged, want %d\n%s", shown, got, want, logs.String())
		}
	}
}

// A file that is not valid UTF-8 text is held back and logged, once per
// content, as every file that cannot sync is: the log names it and why.
func TestNotTextLoggedOncePerContent(t *testing.T) {
	srv := servertest.Start(t)
	var logs bytes.Buffer
	a := newPeer(t, srv.URL, srv.Token, nil)
	a.eng.log = slog.New(slog.NewTextHandler(&logs, nil))
	warnings := func() int {
		return strings.Count(logs.String(), `msg="file not synced" key=latin.md reason="not valid UTF-8 text"`)
	}
	steps := []struct {
		what    string
		content string // latin.md's content, "" to leave it
		want    int    // warnings logged so far
	}{
		{"first sync", "caf\xe9\n", 1},
		{"unchanged", "", 1},
		{"another content, still not text", "na\xefve\n", 2},
		{"text now", "café\n", 2},
		{"not text again", "caf\xe9\n", 3},
	}
	for _, st := range steps {
		if st.content != "" {
			a.write(t, "latin.md", st.content)
		}
		a.sync(t)
		if got := warnings(); got != st.want {
			t.Errorf("after %s: %d warnings logged, want %d\n%s", st.what, got, st.want, logs.String())
		}
	}
}
