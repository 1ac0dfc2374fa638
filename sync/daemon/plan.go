package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// Defaults are the [client] settings a repo inherits unless it overrides
// them.
type Defaults struct {
	Server    string
	TokenFile string
	// ClaudeHome is $CLAUDE_CONFIG_DIR or ~/.claude, for project discovery.
	ClaudeHome string
	// HasRepo, when set, asks the server of s whether it holds s.Repo (a
	// hash probe: 200 or 404), so that discovery creates the team
	// directory of a project whose team already shares notes.
	HasRepo func(s Spec) (bool, error)
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
		projects, skipped := claudeProjects(def.ClaudeHome)
		p.Skipped = append(p.Skipped, skipped...)
		for _, f := range projects {
			if s := withDefaults(f.spec, def); f.needsTeam && s.Server != "" {
				if err := createTeam(s, def); err != nil {
					p.Skipped = append(p.Skipped, Skipped{Source: s.Source, Reason: err.Error()})
					continue
				}
			}
			add(f.spec)
		}
	}
	return p
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
	repo, err := memsync.Discover(rc.Checkout)
	if err != nil {
		return s, err
	}
	s.Repo, s.Dir = repo.Slug, repo.Dir
	return s, nil
}

// claudeProjects finds the Claude Code project directories under
// <home>/projects and maps each back to its repo: by its name, which is
// the checkout's path sanitized, or through the working directories its
// session transcripts record. A project whose memory/team does not exist
// yet is returned with needsTeam set. Those that map to no repo are
// skipped, with the reason.
func claudeProjects(home string) ([]found, []Skipped) {
	if home == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(filepath.Join(home, "projects"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, []Skipped{{Source: home, Reason: err.Error()}}
	}
	var out []found
	var skipped []Skipped
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		project := filepath.Join(home, "projects", e.Name())
		f, err := claudeProject(project)
		if err != nil {
			skipped = append(skipped, Skipped{Source: "claude project " + project, Reason: err.Error()})
			continue
		}
		out = append(out, f)
	}
	return out, skipped
}

// found is a discovered project: its spec, and whether its team directory
// is still to be created.
type found struct {
	spec      Spec
	needsTeam bool
}

// claudeProject maps one project directory to a spec.
func claudeProject(project string) (found, error) {
	team := filepath.Join(project, "memory", "team")
	fi, statErr := os.Stat(team)
	switch {
	case statErr == nil && !fi.IsDir():
		return found{}, fmt.Errorf("%s is not a directory", team)
	case statErr != nil && !errors.Is(statErr, fs.ErrNotExist):
		return found{}, fmt.Errorf("team directory: %w", statErr)
	}
	cwds := append(memsync.ProjectCheckouts(filepath.Base(project)), transcriptDirs(project)...)
	if len(cwds) == 0 {
		return found{}, errors.New("no directory on this machine has the project's name as its path, " +
			"and no session transcript records the project's working directory")
	}
	var lastErr error
	for _, cwd := range cwds {
		repo, err := memsync.Discover(cwd)
		if err != nil {
			lastErr = err
			continue
		}
		if filepath.Clean(repo.Dir) == filepath.Clean(team) {
			return found{spec: Spec{Repo: repo.Slug, Dir: team, Source: "claude project " + project}, needsTeam: statErr != nil}, nil
		}
		lastErr = fmt.Errorf("working directory %s belongs to the team directory %s", cwd, repo.Dir)
	}
	return found{}, fmt.Errorf("cannot map the project to a repo: %w", lastErr)
}

// maxTranscripts and maxTranscriptLines bound the reading of transcripts.
const (
	maxTranscripts     = 5
	maxTranscriptLines = 50
)

// transcriptDirs returns the distinct "cwd" values found at the start of the
// project's *.jsonl transcripts.
func transcriptDirs(project string) []string {
	files, _ := filepath.Glob(filepath.Join(project, "*.jsonl"))
	slices.Sort(files)
	var out []string
	for _, f := range files[:min(len(files), maxTranscripts)] {
		for _, cwd := range transcriptCwds(f) {
			if !slices.Contains(out, cwd) {
				out = append(out, cwd)
			}
		}
	}
	return out
}

// transcriptCwds reads the first lines of one transcript for "cwd" fields.
func transcriptCwds(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	var out []string
	for i := 0; i < maxTranscriptLines && sc.Scan(); i++ {
		if cwd := ParseTranscriptCwd(sc.Bytes()); cwd != "" && !slices.Contains(out, cwd) {
			out = append(out, cwd)
		}
	}
	return out
}

// ParseTranscriptCwd returns the absolute "cwd" of one transcript line, or
// "" when the line has none.
func ParseTranscriptCwd(line []byte) string {
	var rec struct {
		Cwd string `json:"cwd"`
	}
	if err := json.Unmarshal(line, &rec); err != nil || !filepath.IsAbs(rec.Cwd) {
		return ""
	}
	return filepath.Clean(rec.Cwd)
}

// withDefaults gives s the [client] server and token file unless it has
// its own.
func withDefaults(s Spec, def Defaults) Spec {
	s.Server = firstNonEmpty(s.Server, def.Server)
	s.TokenFile = firstNonEmpty(s.TokenFile, def.TokenFile)
	return s
}

// createTeam creates the team directory of a discovered project whose repo
// the server already holds, so a new teammate receives the team's notes;
// otherwise it says why the project is not synced.
func createTeam(s Spec, def Defaults) error {
	if def.HasRepo == nil {
		return fmt.Errorf("%s does not exist yet; create it to share this project's notes", s.Dir)
	}
	has, err := def.HasRepo(s)
	if err != nil {
		return fmt.Errorf("%s does not exist yet, and asking the server whether it holds %s failed: %w", s.Dir, s.Repo, err)
	}
	if !has {
		return fmt.Errorf("%s does not exist yet and the server holds no notes for %s: create it to share this project's notes", s.Dir, s.Repo)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("create the team directory of %s, which the server holds: %w", s.Repo, err)
	}
	return nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
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
