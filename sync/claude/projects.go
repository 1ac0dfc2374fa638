package claude

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Project is a Claude Code project directory that maps to a git checkout.
type Project struct {
	// Dir is the project directory, <home>/projects/<name>.
	Dir string
	// Repo is the checkout's repo; Repo.Dir is the project's team
	// directory, Dir/memory/team.
	Repo Repo
	// TeamExists is false while the team directory is still to be
	// created.
	TeamExists bool
}

// Unmapped is a project directory that maps to no checkout, and why.
type Unmapped struct {
	Dir string
	Err error
}

// Projects finds the project directories under <home>/projects and maps
// each back to its repo: by its name, which is the checkout's path
// sanitized, or through the working directories its session transcripts
// record. Those that map to no repo are returned as Unmapped, with the
// reason. A missing projects directory holds no projects; one that cannot
// be read is the error.
func Projects(home string) ([]Project, []Unmapped, error) {
	entries, err := os.ReadDir(projectsDir(home))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	var found []Project
	var unmapped []Unmapped
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(projectsDir(home), e.Name())
		p, err := project(dir)
		if err != nil {
			unmapped = append(unmapped, Unmapped{Dir: dir, Err: err})
			continue
		}
		found = append(found, p)
	}
	return found, unmapped, nil
}

// project maps one project directory to its repo.
func project(dir string) (Project, error) {
	team := filepath.Join(dir, "memory", "team")
	fi, statErr := os.Stat(team)
	switch {
	case statErr == nil && !fi.IsDir():
		return Project{}, fmt.Errorf("%s is not a directory", team)
	case statErr != nil && !errors.Is(statErr, fs.ErrNotExist):
		return Project{}, fmt.Errorf("team directory: %w", statErr)
	}
	cwds := append(ProjectCheckouts(filepath.Base(dir)), transcriptDirs(dir)...)
	if len(cwds) == 0 {
		return Project{}, errors.New("no directory on this machine has the project's name as its path, " +
			"and no session transcript records the project's working directory")
	}
	var lastErr error
	for _, cwd := range cwds {
		repo, err := Discover(cwd)
		if err != nil {
			lastErr = err
			continue
		}
		if filepath.Clean(repo.Dir) == filepath.Clean(team) {
			repo.Dir = team
			return Project{Dir: dir, Repo: repo, TeamExists: statErr == nil}, nil
		}
		lastErr = fmt.Errorf("working directory %s belongs to the team directory %s", cwd, repo.Dir)
	}
	return Project{}, fmt.Errorf("cannot map the project to a repo: %w", lastErr)
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
