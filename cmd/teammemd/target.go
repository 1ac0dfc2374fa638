package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/daemon"
)

// repoTarget is the one repo a command such as "conflicts resolve" or
// "lint" works on: its team directory, absolute, its slug, and the server
// and token file of its own that the config gives it, if any.
type repoTarget struct {
	dir, repo, server, tokenFile string
}

// findTarget finds the repo a one-repo command works on, as the daemon
// runs it: from --dir and --repo; else the git checkout in the current
// directory, or the Claude Code project whose team directory holds it,
// with what the config sets for it; else the config's repo
// when it names exactly one, or the one whose team directory holds the
// current directory. flagHint is how to name a repo with the command's
// own flags, for the error when none is found.
func findTarget(f syncFlags, cfg Config, flagHint string) (repoTarget, error) {
	if f.dir != "" || f.repo != "" {
		dir, repo, err := syncTarget(f)
		if err != nil {
			return repoTarget{}, hintError(err, flagHint)
		}
		return repoTarget{dir: dir, repo: repo}, nil
	}
	found, gitErr := claude.Discover(".")
	if gitErr == nil {
		return specTarget(daemon.SpecFor(cfg.Daemon, clientDefaults(f, cfg), found)), nil
	}
	if found, ok, err := claudeTeamDirRepo(); ok {
		if err != nil {
			return repoTarget{}, usageError{fmt.Errorf("this is a Claude Code project's team directory, but %w (or %s)", err, flagHint)}
		}
		return specTarget(daemon.SpecFor(cfg.Daemon, clientDefaults(f, cfg), found)), nil
	}
	specs := configSpecs(f, cfg)
	if len(specs) == 1 {
		return specTarget(specs[0]), nil
	}
	if s, ok := specHolding(specs, "."); ok {
		return specTarget(s), nil
	}
	if len(specs) == 0 {
		return repoTarget{}, usageError{fmt.Errorf("%w, and the config names no repo (or %s)", gitErr, flagHint)}
	}
	return repoTarget{}, usageError{fmt.Errorf("the config names %d repos and the current directory is in none of them: "+
		"run this in one's checkout or team directory, or %s; the repos: %s", len(specs), flagHint, specNames(specs))}
}

// claudeTeamDirRepo is the repo of the Claude Code project whose team
// directory holds the current directory; ok is false when none does.
func claudeTeamDirRepo() (claude.Repo, bool, error) {
	home, err := claude.Home()
	if err != nil {
		return claude.Repo{}, false, nil
	}
	return claude.RepoOfTeamDir(home, ".")
}

// specNames lists specs for an error: each repo with its team directory.
func specNames(specs []daemon.Spec) string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = api.Printable(s.Repo) + " (" + api.Printable(s.Dir) + ")"
	}
	return strings.Join(names, ", ")
}

// clientDefaults are the server and token file a repo of the config
// takes unless it sets its own.
func clientDefaults(f syncFlags, cfg Config) daemon.Defaults {
	client := f.client.resolve(cfg.Client)
	return daemon.Defaults{Server: client.Server, TokenFile: client.TokenFile}
}

// configSpecs are the repos the config names, as the daemon would run them.
func configSpecs(f syncFlags, cfg Config) []daemon.Spec {
	return daemon.LocalSpecs(cfg.Daemon, clientDefaults(f, cfg))
}

// specTarget is the target of a spec the daemon would run. The server and
// token file are those of the spec itself, which hold the [client] ones
// where the repo sets none.
func specTarget(s daemon.Spec) repoTarget {
	return repoTarget{dir: s.Dir, repo: s.Repo, server: s.Server, tokenFile: s.TokenFile}
}

// specHolding returns the spec whose team directory holds dir.
func specHolding(specs []daemon.Spec, dir string) (daemon.Spec, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return daemon.Spec{}, false
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for _, s := range specs {
		team := filepath.Clean(s.Dir)
		if real, err := filepath.EvalSymlinks(team); err == nil {
			team = real
		}
		if rel, err := filepath.Rel(team, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(os.PathSeparator)) {
			return s, true
		}
	}
	return daemon.Spec{}, false
}

// hintError puts the command's own way to name a repo in place of the
// generic "(or pass --dir and --repo)" of syncTarget.
func hintError(err error, flagHint string) error {
	var ue usageError
	if !errors.As(err, &ue) {
		return err
	}
	return usageError{errors.New(strings.Replace(ue.Error(), "(or pass --dir and --repo)", "(or "+flagHint+")", 1))}
}

// withTarget gives f the server and token file the config gives t's repo
// of its own, where f names none, as the daemon runs the repo: a repo sent
// to a server of its own keeps its state there. The [client] token file
// is left as it is, so $TEAMMEMD_TOKEN still wins over it.
func (t repoTarget) withTarget(f syncFlags, cfg Config) syncFlags {
	general := f.client.resolve(cfg.Client)
	if t.server != general.Server {
		f.client.server = cmp.Or(f.client.server, t.server)
	}
	if t.tokenFile != general.TokenFile {
		f.client.tokenFile = cmp.Or(f.client.tokenFile, t.tokenFile)
	}
	return f
}
