package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/personal"
)

// syncedLane is a personal lane this machine syncs, as the daemon runs
// it, with its server's personal keys and its lane ID under them.
type syncedLane struct {
	spec daemon.Spec
	keys personal.Keys
	lane string
	host string // the server's host, as the lane's state names it
}

// holds reports whether r is the record of l's state: the same lane ID on
// the same server host.
func (l syncedLane) holds(r memsync.RepoConflicts) bool {
	return r.Lane != "" && r.Lane == l.lane && r.Server == l.host
}

// syncedLanes lists the personal lanes the daemon runs, as far as the disk
// tells: those beside the config's repos, the one beside extra when set,
// and the user files' lane. Each lane's lane ID is worked out with its
// server's key.
func syncedLanes(ctx context.Context, f syncFlags, cfg Config, extra *daemon.Spec) ([]syncedLane, error) {
	teams := configSpecs(f, cfg)
	if extra != nil && !slices.ContainsFunc(teams, func(s daemon.Spec) bool { return filepath.Clean(s.Dir) == filepath.Clean(extra.Dir) }) {
		teams = append(teams, *extra)
	}
	plan := daemon.WithPersonal(daemon.Plan{Specs: teams}, personalLanes(runFlags{config: f.config, client: f.client}, cfg))
	loaded := map[string]personal.Keys{}
	var out []syncedLane
	for _, s := range plan.Specs {
		if s.Lane != daemon.LanePersonal {
			continue
		}
		keys, ok := loaded[s.Server]
		if !ok {
			var err error
			if keys, err = laneKeyStore().Load(ctx, s.Server); err != nil {
				return nil, fmt.Errorf("the personal key of %s: %w", api.Printable(s.Server), err)
			}
			loaded[s.Server] = keys
		}
		host, err := memsync.ServerHost(s.Server)
		if err != nil {
			return nil, err
		}
		out = append(out, syncedLane{spec: s, keys: keys, lane: keys.Current.LaneID(s.Repo), host: host})
	}
	return out, nil
}

// laneProjects names the project of each personal lane in repos that
// this machine syncs, by its state's name; a lane it cannot tell keeps the
// name of its state.
func laneProjects(ctx context.Context, f syncFlags, cfg Config, repos []memsync.RepoConflicts) (map[string]string, error) {
	if !slices.ContainsFunc(repos, func(r memsync.RepoConflicts) bool { return r.Lane != "" && len(r.Conflicts) > 0 }) {
		return nil, nil
	}
	lanes, err := syncedLanes(ctx, f, cfg, nil)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, r := range repos {
		if i := slices.IndexFunc(lanes, func(l syncedLane) bool { return l.holds(r) }); i >= 0 {
			names[r.Repo] = lanes[i].spec.Repo
		}
	}
	return names, nil
}

// laneCopies is a synced lane whose state records a conflict copy a
// command names.
type laneCopies struct {
	syncedLane
	state  string // the state's name, "~personal/" and the lane ID
	copies []memsync.Conflict
}

// namedTeam is the team repo the flags name with --dir, else the git
// checkout in the current directory; explicit says the flags named it.
// The lane beside it is the one a personal copy is looked for in first.
type namedTeam struct {
	spec     *daemon.Spec
	explicit bool
}

// findNamedTeam finds the team repo --dir (with --repo, or the slug of
// its checkout) names, else the git checkout in the current directory;
// none is no error. A lane named on its own (~user, or a state's name) has
// no team directory.
func findNamedTeam(f syncFlags, cfg Config) (namedTeam, error) {
	def := clientDefaults(f, cfg)
	if f.dir != "" {
		if strings.HasPrefix(f.repo, "~") {
			return namedTeam{}, usageError{fmt.Errorf("--dir names a team directory, whose personal lane --repo names by its repo; %s takes no --dir", api.Printable(f.repo))}
		}
		dir, repo, err := syncTarget(f)
		if err != nil {
			return namedTeam{}, err
		}
		return namedTeam{spec: &daemon.Spec{Repo: repo, Dir: dir, Server: def.Server, TokenFile: def.TokenFile, Source: "flags"}, explicit: true}, nil
	}
	found, err := claude.Discover(".")
	if err != nil {
		return namedTeam{}, nil
	}
	s := daemon.SpecFor(cfg.Daemon, def, found)
	return namedTeam{spec: &s}, nil
}

// besides reports whether lane l runs beside the named team repo.
func (n namedTeam) besides(l laneCopies) bool {
	if n.spec == nil {
		return false
	}
	mem, err := memsync.PrivateMemory(n.spec.Dir)
	return err == nil && filepath.Clean(mem) == filepath.Clean(l.spec.Dir) && l.spec.Repo == n.spec.Repo
}

// isLaneName reports whether --repo names a personal lane rather than a
// team repo: "~" begins no repo slug, and begins ~user and the name of a
// lane's state, "~personal/" and its ID.
func isLaneName(repo string) bool { return strings.HasPrefix(repo, "~") }

// isLaneCopy reports whether arg is the path of a conflict copy a
// personal lane's state records. A state that cannot be read answers
// no: the team repo's resolve then reports what it finds.
func isLaneCopy(f syncFlags, arg string) bool {
	cfg, err := loadConfig(f.config)
	if err != nil {
		return false
	}
	recorded, err := memsync.ConflictsIn(f.client.resolve(cfg.Client).StateDir)
	if err != nil {
		return false
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(recorded, func(r memsync.RepoConflicts) bool {
		return r.Lane != "" && slices.ContainsFunc(r.Conflicts, func(c memsync.Conflict) bool { return c.Path == abs })
	})
}

// laneCopyTarget finds the personal lane whose conflict copy arg names
// (a note's key, or the copy's path), builds the lane's engine and
// returns the copy.
func laneCopyTarget(ctx context.Context, c *repoCommand, arg string, stderr io.Writer) (*memsync.Engine, *scan.Scanner, memsync.Conflict, error) {
	cfg, err := loadConfig(c.f.config)
	if err != nil {
		return nil, nil, memsync.Conflict{}, err
	}
	recorded, err := memsync.ConflictsIn(c.f.client.resolve(cfg.Client).StateDir)
	if err != nil {
		return nil, nil, memsync.Conflict{}, err
	}
	named, err := findNamedTeam(c.f, cfg)
	if err != nil {
		return nil, nil, memsync.Conflict{}, err
	}
	lanes, err := syncedLanes(ctx, c.f, cfg, named.spec)
	if err != nil {
		return nil, nil, memsync.Conflict{}, err
	}
	l, err := pickLane(c.f, named, lanesHolding(lanes, recorded, arg), arg, recorded)
	if err != nil {
		return nil, nil, memsync.Conflict{}, err
	}
	eng, sc, err := buildLaneEngine(c.f, cfg, l.syncedLane, stderr)
	if err != nil {
		return nil, nil, memsync.Conflict{}, err
	}
	cp, err := findCopy(eng, arg)
	return eng, sc, cp, err
}

// lanesHolding are the lanes whose state records a copy arg names.
func lanesHolding(lanes []syncedLane, recorded []memsync.RepoConflicts, arg string) []laneCopies {
	named := copyNamed(arg)
	var out []laneCopies
	for _, l := range lanes {
		for _, r := range recorded {
			if !l.holds(r) {
				continue
			}
			if copies := slices.DeleteFunc(slices.Clone(r.Conflicts), func(c memsync.Conflict) bool { return !named(c) }); len(copies) > 0 {
				out = append(out, laneCopies{syncedLane: l, state: r.Repo, copies: copies})
			}
		}
	}
	return out
}

// pickLane picks the one lane of holding the flags name: the lane whose
// project or state --repo names, the lane beside --dir's team directory;
// else the one lane there is, or the one beside the git checkout in the
// current directory. Several are an error that lists their copies.
func pickLane(f syncFlags, named namedTeam, holding []laneCopies, arg string, recorded []memsync.RepoConflicts) (laneCopies, error) {
	if len(holding) == 0 {
		return laneCopies{}, noLaneCopy(arg, recorded)
	}
	mine := slices.DeleteFunc(slices.Clone(holding), func(l laneCopies) bool {
		otherRepo := f.repo != "" && l.spec.Repo != f.repo && l.state != f.repo
		return otherRepo || (named.explicit && !named.besides(l))
	})
	if len(mine) == 0 {
		which := cmp.Or(f.repo, f.dir)
		return laneCopies{}, fmt.Errorf("no conflict copy of %s in the personal lane of %s (teammemd conflicts lists them)", api.Printable(arg), api.Printable(which))
	}
	if len(mine) > 1 {
		if i := slices.IndexFunc(mine, named.besides); i >= 0 {
			return mine[i], nil
		}
		return laneCopies{}, usageError{fmt.Errorf("%d personal lanes have a conflict copy of %s: name the copy by its path, or pass --repo with the lane's project; the copies: %s",
			len(mine), api.Printable(arg), laneCopyNames(mine))}
	}
	return mine[0], nil
}

// laneCopyNames lists the copies of lanes for an error: each lane's
// project with the copies' paths.
func laneCopyNames(lanes []laneCopies) string {
	var names []string
	for _, l := range lanes {
		for _, c := range l.copies {
			names = append(names, api.Printable(l.spec.Repo)+": "+api.Printable(c.Path))
		}
	}
	return strings.Join(names, ", ")
}

// noLaneCopy says why no lane this machine syncs has a copy arg names: a
// team repo has it, or a lane this machine does not sync now, or none.
func noLaneCopy(arg string, recorded []memsync.RepoConflicts) error {
	named := copyNamed(arg)
	for _, r := range recorded {
		i := slices.IndexFunc(r.Conflicts, named)
		switch {
		case i < 0:
		case r.Lane == "":
			return usageError{fmt.Errorf("no personal lane has a conflict copy of %s; the team repo %s has one: leave out --personal", api.Printable(arg), api.Printable(r.Repo))}
		default:
			return fmt.Errorf("the conflict copy %s is of the personal lane %s, which this machine syncs for no project now (the project is no longer synced, [personal] enabled is false, or the personal key changed since): the copy stays there; take what you need from it by hand",
				api.Printable(r.Conflicts[i].Path), api.Printable(r.Repo))
		}
	}
	return errors.New("no personal lane has a conflict copy of " + api.Printable(arg) + " (teammemd conflicts lists them)")
}

// buildLaneEngine builds the engine of lane l as the daemon does, with
// the server and token of its spec (flags > environment > config), for a
// command whose report the user reads.
func buildLaneEngine(f syncFlags, cfg Config, l syncedLane, stderr io.Writer) (*memsync.Engine, *scan.Scanner, error) {
	s := l.spec
	stateDir := f.client.resolve(cfg.Client).StateDir
	parts, err := engineParts(f, cfg, s.Server, s.TokenFile, stateDir, stderr)
	if err != nil {
		return nil, nil, err
	}
	opts := memsync.Options{Scanner: parts.scanner, Logger: parts.log, ReportShown: true}
	eng, _, err := personal.OpenLane(laneConfig(s, stateDir), l.keys, parts.client, opts)
	return eng, parts.scanner, err
}
