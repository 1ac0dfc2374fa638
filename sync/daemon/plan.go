package daemon

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
)

// Defaults are the [client] settings a repo inherits unless it overrides
// them.
type Defaults struct {
	Server    string
	TokenFile string
	// ClaudeHome is Claude Code's config directory, for project
	// discovery; empty means claude.Home().
	ClaudeHome string
	// HasRepo, when set, asks the server of s whether it holds s.Repo (a
	// hash probe: 200 or 404), so that discovery creates the team
	// directory of a project whose team already shares notes.
	HasRepo func(s Spec) (bool, error)
	// CheckServer, when set, refuses a server the token must not be sent
	// to (plain http:// beyond loopback); HasRepo never asks it.
	CheckServer func(server string) error
}

// BuildPlan resolves the configured repos and, when enabled, the Claude Code
// project memory directories into specs. Repos that cannot run are listed
// in Skipped with the reason; a directory is synced at most once, the
// configured entry winning over a discovered one.
func BuildPlan(cfg Config, def Defaults) Plan {
	var p Plan
	seen := map[string]bool{}
	add := func(s Spec) {
		s = withDefaults(s, def)
		if s.Server == "" {
			p.Skipped = append(p.Skipped, Skipped{Source: s.Source, Reason: "no server: set [client] server or the repo's server"})
			return
		}
		dir := filepath.Clean(s.Dir)
		if seen[dir] {
			return
		}
		seen[dir] = true
		p.Specs = append(p.Specs, s)
	}
	for _, rc := range cfg.Repos {
		s, err := configuredSpec(rc)
		if err != nil {
			p.Skipped = append(p.Skipped, Skipped{Source: s.Source, Reason: err.Error()})
			continue
		}
		add(s)
	}
	if cfg.DiscoverClaudeProjects {
		projects, skipped := discovered(def)
		p.Skipped = append(p.Skipped, skipped...)
		for _, f := range projects {
			if s := withDefaults(f.spec, def); f.needsTeam && s.Server != "" {
				if retry, err := createTeam(s, def); err != nil {
					p.Skipped = append(p.Skipped, Skipped{Source: s.Source, Reason: err.Error(), Discovered: true, retry: retry})
					continue
				}
			}
			add(f.spec)
		}
	}
	return p
}

// SpecFor returns the spec the daemon runs for the team directory of
// checkout r, as BuildPlan would make it, without asking a server or
// creating a directory: the first configured repo whose directory is r's,
// else r's own slug and directory, with the defaults either way. Only the
// configured checkouts with a server or token file of their own are
// looked up with git; the others would give r's slug and defaults anyway.
func SpecFor(cfg Config, def Defaults, r claude.Repo) Spec {
	for _, rc := range cfg.Repos {
		if rc.Checkout != "" && rc.Server == "" && rc.TokenFile == "" {
			continue
		}
		s, err := configuredSpec(rc)
		if err == nil && filepath.Clean(s.Dir) == filepath.Clean(r.Dir) {
			return withDefaults(s, def)
		}
	}
	return withDefaults(Spec{Repo: r.Slug, Dir: r.Dir, Source: "git checkout " + r.Root}, def)
}

// LocalSpecs lists the repos BuildPlan would run, as far as the disk
// tells, for a command that works on one of them in place: the configured
// repos that resolve and, when discovery is on, the Claude Code projects
// whose team directory exists, each directory once, with the defaults. A
// repo with no server is listed too, and no server is asked and no
// directory created.
func LocalSpecs(cfg Config, def Defaults) []Spec {
	var specs []Spec
	seen := map[string]bool{}
	add := func(s Spec) {
		if dir := filepath.Clean(s.Dir); !seen[dir] {
			seen[dir] = true
			specs = append(specs, withDefaults(s, def))
		}
	}
	for _, rc := range cfg.Repos {
		if s, err := configuredSpec(rc); err == nil {
			add(s)
		}
	}
	if cfg.DiscoverClaudeProjects {
		projects, _ := discovered(def)
		for _, f := range projects {
			if !f.needsTeam {
				add(f.spec)
			}
		}
	}
	return specs
}

// configuredSpec turns one [[daemon.repo]] into a spec.
func configuredSpec(rc RepoConfig) (Spec, error) {
	s := Spec{Repo: rc.Repo, Dir: rc.Dir, Server: rc.Server, TokenFile: rc.TokenFile, Source: "config dir " + rc.Dir}
	if rc.Checkout == "" {
		abs, err := filepath.Abs(rc.Dir)
		if err != nil {
			return s, fmt.Errorf("team directory: %w", err)
		}
		s.Dir = abs
		return s, nil
	}
	s.Source = "config checkout " + rc.Checkout
	repo, err := claude.Discover(rc.Checkout)
	if err != nil {
		return s, err
	}
	s.Repo, s.Dir = repo.Slug, repo.Dir
	return s, nil
}

// discovered lists the Claude Code projects under def's config home as
// specs; the projects that map to no repo, and a config home that cannot
// be found or read, are skipped with the reason.
func discovered(def Defaults) ([]found, []Skipped) {
	home := def.ClaudeHome
	if home == "" {
		var err error
		if home, err = claude.Home(); err != nil {
			return nil, []Skipped{{Source: "claude projects", Reason: err.Error()}}
		}
	}
	projects, unmapped, err := claude.Projects(home)
	if err != nil {
		return nil, []Skipped{{Source: home, Reason: err.Error()}}
	}
	var skipped []Skipped
	for _, u := range unmapped {
		skipped = append(skipped, Skipped{Source: projectSource + u.Dir, Reason: u.Err.Error(), Discovered: true})
	}
	out := make([]found, 0, len(projects))
	for _, p := range projects {
		spec := Spec{Repo: p.Repo.Slug, Dir: p.Repo.Dir, Source: projectSource + p.Dir}
		out = append(out, found{spec: spec, needsTeam: !p.TeamExists})
	}
	return out, skipped
}

// projectSource begins the Source of every discovered project's spec, and
// of every skip of one.
const projectSource = "claude project "

// DiscoveredProject reports whether s is a Claude Code project discovery
// found and left out: one whose checkout is gone or has no remote, or
// whose team directory does not exist yet. These are the ordinary state of
// a machine, not a mistake in the config.
func (s Skipped) DiscoveredProject() bool { return s.Discovered }

// DiscoveryRetry is how often the daemon discovers Claude Code's projects
// again while one is left out because its server could not be asked
// whether it holds the project's repo: no token yet, the server not
// reachable or refusing the token.
const DiscoveryRetry = 10 * time.Second

// AskAgain reports whether s is a discovered project left out because its
// server could not be asked whether it holds the repo; discovery asks
// again every DiscoveryRetry.
func (s Skipped) AskAgain() bool { return s.retry }

// found is a discovered project: its spec, and whether its team directory
// is still to be created.
type found struct {
	spec      Spec
	needsTeam bool
}

// withDefaults gives s the [client] server and token file unless it has
// its own.
func withDefaults(s Spec, def Defaults) Spec {
	s.Server = cmp.Or(s.Server, def.Server)
	s.TokenFile = cmp.Or(s.TokenFile, def.TokenFile)
	return s
}

// createTeam creates the team directory of a discovered project whose repo
// the server already holds, so a new teammate receives the team's notes;
// otherwise it says why the project is not synced, and whether the server
// could not be asked, so a later discovery asks again.
func createTeam(s Spec, def Defaults) (retry bool, err error) {
	if def.HasRepo == nil {
		return false, fmt.Errorf("%s does not exist yet; create it to share this project's notes", s.Dir)
	}
	if def.CheckServer != nil {
		if err := def.CheckServer(s.Server); err != nil {
			return false, fmt.Errorf("%s does not exist yet, and the server was not asked whether it holds %s: %w", s.Dir, s.Repo, err)
		}
	}
	has, err := def.HasRepo(s)
	if err != nil {
		return true, fmt.Errorf("%s does not exist yet, and asking the server whether it holds %s failed (asked again every %s): %w",
			s.Dir, s.Repo, DiscoveryRetry, err)
	}
	if !has {
		return false, fmt.Errorf("%s does not exist yet and the server holds no notes for %s: create it to share this project's notes", s.Dir, s.Repo)
	}
	if err := os.MkdirAll(s.Dir, memsync.TeamDirMode); err != nil {
		return false, fmt.Errorf("create the team directory of %s, which the server holds: %w", s.Repo, err)
	}
	return false, nil
}

// Prober probes a repo's hashes on its server.
type Prober interface {
	Hashes(ctx context.Context, repo string) (api.HashesResponse, error)
}

// HasRepo reports whether the server behind c holds repo: a hash probe
// answers 200, where a repo never written is a 404.
func HasRepo(ctx context.Context, c Prober, repo string) (bool, error) {
	_, err := c.Hashes(ctx, repo)
	if memsync.Classify(err) == memsync.NoRepo {
		return false, nil
	}
	return err == nil, err
}
