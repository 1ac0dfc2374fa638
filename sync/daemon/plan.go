package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	memsync "github.com/teammemd/teammemd/sync"
)

// Defaults are the [client] settings a repo inherits unless it overrides
// them.
type Defaults struct {
	Server    string
	TokenFile string
	// ClaudeHome is $CLAUDE_CONFIG_DIR or ~/.claude, for project discovery.
	ClaudeHome string
}

// BuildPlan resolves the configured repos and, when enabled, the Claude Code
// project memory directories into specs. Repos that cannot run are listed
// in Skipped with the reason; a directory is synced at most once, the
// configured entry winning over a discovered one.
func BuildPlan(cfg Config, def Defaults) Plan {
	var p Plan
	seen := map[string]bool{}
	add := func(s Spec) {
		s.Server = firstNonEmpty(s.Server, def.Server)
		s.TokenFile = firstNonEmpty(s.TokenFile, def.TokenFile)
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
		specs, skipped := claudeProjects(def.ClaudeHome)
		p.Skipped = append(p.Skipped, skipped...)
		for _, s := range specs {
			add(s)
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

// claudeProjects finds <home>/projects/*/memory/team directories and maps
// each back to its repo through the working directory recorded in the
// project's session transcripts.
func claudeProjects(home string) ([]Spec, []Skipped) {
	if home == "" {
		return nil, nil
	}
	teams, err := filepath.Glob(filepath.Join(home, "projects", "*", "memory", "team"))
	if err != nil {
		return nil, []Skipped{{Source: home, Reason: err.Error()}}
	}
	slices.Sort(teams)
	var specs []Spec
	var skipped []Skipped
	for _, team := range teams {
		if fi, err := os.Stat(team); err != nil || !fi.IsDir() {
			continue
		}
		s, err := claudeProject(team)
		if err != nil {
			skipped = append(skipped, Skipped{Source: "claude project " + team, Reason: err.Error()})
			continue
		}
		specs = append(specs, s)
	}
	return specs, skipped
}

// claudeProject maps one project team directory to a spec.
func claudeProject(team string) (Spec, error) {
	project := filepath.Dir(filepath.Dir(team))
	cwds := transcriptDirs(project)
	if len(cwds) == 0 {
		return Spec{}, errors.New("no session transcript records the project's working directory")
	}
	var lastErr error
	for _, cwd := range cwds {
		repo, err := memsync.Discover(cwd)
		if err != nil {
			lastErr = err
			continue
		}
		if filepath.Clean(repo.Dir) == filepath.Clean(team) {
			return Spec{Repo: repo.Slug, Dir: team, Source: "claude project " + project}, nil
		}
		lastErr = fmt.Errorf("working directory %s belongs to the team directory %s", cwd, repo.Dir)
	}
	return Spec{}, fmt.Errorf("cannot map the project to a repo: %w", lastErr)
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

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
