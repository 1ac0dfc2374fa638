package faulttest

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/personal"
	"github.com/teammemd/teammemd/sync/personal/personaltest"
)

// Each side also runs its owner's personal lane (PROTOCOL.md section 16)
// over the memory directory its team directory is in, with a writer of
// its own: the lane is sealed, so the server's history cannot account
// for every save, and the check is that each note's last save is what
// the memory directory and the server (opened with the side's key) hold
// once they settle, or is kept in a conflict copy (a push whose answer a
// fault cut off leaves the server a version the daemon did not see
// accepted), with no torn file, extra file or temporary file left.

// personalSide names a side's personal writer, whose saves differ from
// its team writer's.
func personalSide(name string) string { return name + "-personal" }

// preparePersonal makes the side's personal key, stores it on the server
// and in the daemon's config directory for the server URL the daemon
// uses, before the daemon first starts.
func (r *rig) preparePersonal(ctx context.Context, s *side, url string) {
	r.t.Helper()
	k, err := personal.NewKey()
	if err != nil {
		r.t.Fatal(err)
	}
	personaltest.Init(r.t, r.server.URL, s.token, k)
	ks := personal.NewKeyStore(filepath.Join(s.d.ConfigDir, "personal"), "file")
	ks.Keyring = nil
	if err := ks.Save(ctx, url, personal.Keys{Current: k}); err != nil {
		r.t.Fatal(err)
	}
	s.key = k
}

// waitPersonal waits for a started daemon's personal lane to pull once.
func waitPersonal(ctx context.Context, s *side) error {
	deadline := time.Now().Add(readyLimit)
	for {
		st, err := s.d.PersonalStatus(ctx)
		if err == nil && st.LastPull != nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s's personal lane did not pull within %s (%v; log: %s)", s.name, readyLimit, err, s.d.Proc().LogTail())
		}
		if err := proclab.Pause(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

// laneEntries opens what the server holds of the side's lane, bypassing
// any proxy.
func (r *rig) laneEntries(ctx context.Context, s *side, names string) (map[string]string, error) {
	c, err := memsync.NewClient(r.server.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: s.token}))
	if err != nil {
		return nil, err
	}
	tr, err := personal.NewTransport(c, personal.Keys{Current: s.key}, proofRepo, memsync.ProjectMemory, names)
	if err != nil {
		return nil, err
	}
	full, _, err := tr.Get(ctx, "", "")
	if memsync.Classify(err) == memsync.NoRepo {
		return map[string]string{}, nil
	}
	return full.Content.Entries, err
}

// verifyPersonal waits up to limit for each side's memory directory and
// its lane on the server to agree, then checks the last saves and the
// directory.
func (r *rig) verifyPersonal(ctx context.Context, limit time.Duration, ev evidence, t *tally) {
	names := r.t.TempDir()
	lanes := map[*side]map[string]string{}
	for _, s := range r.sides {
		server, diff := r.convergeLane(ctx, s, limit, names)
		if diff != "" {
			t.violate("personal lane convergence: %s", diff)
			continue
		}
		lanes[s] = server
	}
	// The lanes may settle after the team directories did, and a conflict
	// copy a lane's last pull made is evidence too: read them again.
	copies, err := r.conflictCopies()
	if err != nil {
		t.violate("gather evidence: %v", err)
		return
	}
	inCopy := map[string]bool{}
	for _, c := range copies {
		inCopy[c.sum] = true
		if _, seen := ev.conflicts[c.sum]; seen {
			continue
		}
		t.conflictCopies++
		if _, ok := ev.written[c.sum]; !ok {
			t.violate("torn file: conflict copy %s (%s) is no version a writer saved whole", c.path, short(c.sum))
		}
	}
	for _, s := range r.sides {
		server, ok := lanes[s]
		if !ok {
			continue
		}
		last := map[string]save{}
		for _, sv := range s.pw.saves {
			last[sv.key] = sv
			t.saves++
		}
		for key, sv := range last {
			t.required++
			copied := inCopy[sv.sum]
			switch got := api.EntryChecksum(server[key]); {
			case got == sv.sum:
				t.inHistory++
			case copied:
				t.inConflict++
			default:
				t.lost++
				t.violate("lost personal edit: %s's last save of %s (#%d, %s) is neither what the lane holds (%s) nor in a conflict copy",
					s.name, key, sv.seq, short(sv.sum), short(got))
			}
		}
		r.checkMemory(s, t)
	}
}

// convergeLane polls until the side's memory directory holds exactly what
// its lane holds, and returns the lane; else it describes the difference.
func (r *rig) convergeLane(ctx context.Context, s *side, limit time.Duration, names string) (map[string]string, string) {
	deadline := time.Now().Add(limit)
	for {
		server, err := r.laneEntries(ctx, s, names)
		diff := ""
		if err != nil {
			diff = "read the lane: " + err.Error()
		} else {
			diff = laneDifference(s, server)
		}
		if diff == "" {
			return server, ""
		}
		if time.Now().After(deadline) {
			return nil, fmt.Sprintf("%s: not converged within %s: %s", s.name, limit, diff)
		}
		if err := proclab.Pause(ctx, 100*time.Millisecond); err != nil {
			return nil, diff + ": " + err.Error()
		}
	}
}

func laneDifference(s *side, server map[string]string) string {
	for _, key := range slices.Sorted(maps.Keys(server)) {
		if !slices.Contains(notes, key) {
			return fmt.Sprintf("the lane holds %s, which no writer saved", key)
		}
	}
	for _, key := range notes {
		want := "absent"
		if v, ok := server[key]; ok {
			want = api.EntryChecksum(v)
		}
		if got := fileSum(s.d.Memory, key); got != want {
			return fmt.Sprintf("%s: the lane holds %s, the memory directory %s", key, short(want), short(got))
		}
	}
	return ""
}

// checkMemory checks the memory directory outside team/: every file a
// note, no temporary file of the engine.
func (r *rig) checkMemory(s *side, t *tally) {
	err := filepath.WalkDir(s.d.Memory, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(s.d.Memory, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		switch {
		case e.IsDir() && key == "team":
			return filepath.SkipDir
		case e.IsDir():
		case strings.HasPrefix(e.Name(), ".teammemd-"):
			t.violate("temp litter: %s's memory directory holds %s after the final restart and settle", s.name, key)
		case !slices.Contains(notes, key):
			t.violate("extra file: %s's memory directory holds %s, which no writer saved", s.name, key)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.violate("walk %s's memory directory: %v", s.name, err)
	}
}
