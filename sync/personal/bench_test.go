package personal_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
	"github.com/teammemd/teammemd/sync/personal"
	"github.com/teammemd/teammemd/sync/personal/personaltest"
)

// BenchmarkPush4KB measures the push of one edited 4 KB note through the
// team lane and through the personal lane, against the same real server
// in the same run: the difference is what sealing costs.
func BenchmarkPush4KB(b *testing.B) {
	srv := servertest.Start(b)
	token := srv.CreateToken(b, "alice")
	k, err := personal.NewKey()
	if err != nil {
		b.Fatal(err)
	}
	personaltest.Init(b, srv.URL, token, k)
	c, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token}),
		memsync.WithRetry(1, time.Millisecond, 5*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	// Each run pushes to a repo and a lane of its own.
	lanes := map[string]func(project, dir, state string) (*memsync.Engine, error){
		"team": func(project, dir, state string) (*memsync.Engine, error) {
			return memsync.New(memsync.Config{Dir: dir, Repo: project, Server: srv.URL, StateDir: state}, memsync.Options{Client: c})
		},
		"personal": func(project, dir, state string) (*memsync.Engine, error) {
			pc, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}))
			if err != nil {
				return nil, err
			}
			cfg := personal.LaneConfig{Dir: dir, Project: project, Files: memsync.ProjectMemory, Server: srv.URL, StateDir: state}
			eng, _, err := personal.OpenLane(cfg, personal.Keys{Current: k}, pc, memsync.Options{})
			return eng, err
		},
	}
	value := strings.Repeat("memory line of about forty characters.\n", 110)
	runs := 0
	for _, lane := range []string{"team", "personal"} {
		b.Run(lane, func(b *testing.B) {
			runs++
			dir := filepath.Join(b.TempDir(), "memory")
			eng, err := lanes[lane](fmt.Sprintf("acme/app-%d", runs), dir, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			round := 0
			for b.Loop() {
				b.StopTimer()
				round++
				claudetest.WriteNote(b, dir, "prefs.md", fmt.Sprintf("%05d\n%s", round, value)[:4096])
				b.StartTimer()
				rep, err := eng.Push(context.Background())
				if err != nil || len(rep.Pushed) != 1 {
					b.Fatalf("Push = %v, %v; want prefs.md pushed", rep.Pushed, err)
				}
			}
		})
	}
}

// BenchmarkSeal4KB and BenchmarkOpen4KB measure sealing and opening one
// 4 KB note alone: what the personal lane adds to a push and to a pull of
// it, without the network and the store.
func BenchmarkSeal4KB(b *testing.B) {
	k, err := personal.NewKey()
	if err != nil {
		b.Fatal(err)
	}
	n := personal.Note{Project: "acme/app", Path: "prefs.md", Content: []byte(strings.Repeat("x", 4096))}
	for b.Loop() {
		if _, _, err := k.Seal(n); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen4KB(b *testing.B) {
	k, err := personal.NewKey()
	if err != nil {
		b.Fatal(err)
	}
	wire, value, err := k.Seal(personal.Note{Project: "acme/app", Path: "prefs.md", Content: []byte(strings.Repeat("x", 4096))})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := personal.Open([]*personal.Key{k}, wire, value); err != nil {
			b.Fatal(err)
		}
	}
}
