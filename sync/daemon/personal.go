package daemon

import (
	"path/filepath"
	"slices"

	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/personal"
	"github.com/teammemd/teammemd/watch"
)

// Personal says which personal lanes (PROTOCOL.md section 16) the daemon
// runs beside the team repos.
type Personal struct {
	// KeyFile returns the file of server's personal key, and whether a
	// key is stored for server: a server without one gets no lane.
	KeyFile func(server string) (string, bool)
	// Home is Claude Code's config directory.
	Home string
	// UserFiles adds the lane of the user-level files in Home, on
	// UserServer.
	UserFiles     bool
	UserServer    string
	UserTokenFile string
}

// WithPersonal adds to plan, for every team repo whose directory is a
// Claude Code project's team directory under p.Home, configured or
// discovered, the personal lane over the project's memory directory,
// with the repo's server and token; and, with p.UserFiles, the lane of
// the user-level files. A lane on a server this machine holds no
// personal key of is left out: its user has not run teammemd personal
// init or join for that server.
func WithPersonal(plan Plan, p Personal) Plan {
	if p.KeyFile == nil || p.Home == "" {
		return plan
	}
	var lanes []Spec
	for _, s := range plan.Specs {
		mem, ok := memoryDir(p.Home, s)
		if !ok {
			continue
		}
		file, ok := p.KeyFile(s.Server)
		if !ok {
			continue
		}
		lane := s
		lane.Dir, lane.Lane, lane.KeyFile, lane.Source = mem, LanePersonal, file, "personal lane of "+s.Source
		lanes = append(lanes, lane)
	}
	if p.UserFiles && p.UserServer != "" {
		if file, ok := p.KeyFile(p.UserServer); ok {
			lanes = append(lanes, userLane(plan, p, file))
		}
	}
	plan.Specs = append(plan.Specs, lanes...)
	return plan
}

// memoryDir is the memory directory of s's Claude Code project, when s is
// a team repo whose directory is one's team directory.
func memoryDir(home string, s Spec) (string, bool) {
	if s.lane() != LaneTeam {
		return "", false
	}
	return claude.MemoryDirOf(home, filepath.Clean(s.Dir))
}

// userLane is the spec of the user-level files' lane: the token of the
// first team repo on its server, else the [client] one.
func userLane(plan Plan, p Personal, keyFile string) Spec {
	s := Spec{Server: p.UserServer, TokenFile: p.UserTokenFile}
	if i := slices.IndexFunc(plan.Specs, func(t Spec) bool { return t.Server == p.UserServer }); i >= 0 {
		s = plan.Specs[i]
	}
	s.Repo, s.Dir, s.Lane, s.KeyFile, s.Source = personal.UserProject, p.Home, LanePersonal, keyFile, "personal user files"
	return s
}

// ignorer is an engine that ignores some changes in its directory: a
// personal lane's, whose directory holds the team's too.
type ignorer interface {
	Ignores(p string) bool
}

// changeNoter is an engine told what its watcher saw, which then scans
// only the paths named (memsync.Engine.NoteChanges).
type changeNoter interface {
	NoteChanges(paths []string, rescan bool)
}

// tellEngine passes b to the engine when it takes the watcher's notes. A
// batch made only of the last pull's own writes is not passed: the engine
// recorded those files as it wrote them.
func (r *repo) tellEngine(b watch.Batch) {
	if n, ok := r.eng.(changeNoter); ok {
		n.NoteChanges(b.Paths, b.Rescan)
	}
}

// relevant is b without the paths the repo's engine ignores.
func (r *repo) relevant(b watch.Batch) watch.Batch {
	ig, ok := r.eng.(ignorer)
	if !ok {
		return b
	}
	b.Paths = slices.DeleteFunc(slices.Clone(b.Paths), ig.Ignores)
	return b
}
