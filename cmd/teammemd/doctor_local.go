package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/teammemd/teammemd/sync/daemon"
)

func (d *doctor) checkRepos(ctx context.Context) {
	if d.skipForConfig("repos") {
		return
	}
	plan, err := planFor(runFlags{config: d.config, client: d.flags}, d.cfg)
	if err != nil {
		d.report(checkFail, "repos", err.Error(), "list repos as [[daemon.repo]] in the config, or run teammemd doctor inside the git checkout to sync")
		return
	}
	d.plan = plan
	for _, s := range plan.Skipped {
		d.reportSkipped(s)
	}
	for _, s := range plan.Specs {
		d.checkRepoAccess(ctx, s.Repo, s.Dir, s.Source, s.Server, s.TokenFile)
	}
	switch {
	case len(plan.Specs)+len(plan.Skipped) > 0:
	case d.cfg.Daemon.DiscoverClaudeProjects:
		d.report(checkInfo, "repos", "no Claude Code project found yet (discover_claude_projects in [daemon]); "+
			"the daemon picks one up when Claude Code opens a checkout", "")
	default:
		d.report(checkFail, "repos", "nothing to sync", "list repos as [[daemon.repo]] in the config, "+
			"or set discover_claude_projects = true in [daemon]")
	}
}

// checkRepoAccess reports one repo: where it syncs, and whether its token
// may read it.
func (d *doctor) checkRepoAccess(ctx context.Context, repo, dir, source, server, tokenFile string) {
	detail := fmt.Sprintf("%s in %s (%s)", repo, dir, source)
	tok, err := d.rule.For(server, tokenFile).Bearer()
	if !d.reached || !d.identity || err != nil {
		d.report(checkOK, "repo", detail+"; access not checked", "")
		return
	}
	status, msg, err := d.probe(ctx, server, repo, tok)
	switch {
	case err != nil:
		d.report(checkFail, "repo", detail+": "+err.Error(), reachFix(err))
	case status == http.StatusForbidden:
		d.report(checkFail, "repo", detail+": the token has no grant for it: "+msg,
			"ask the server's admin for a token whose --repos covers "+repo)
	case status == http.StatusUnauthorized:
		d.report(checkFail, "repo", detail+": the server refused its token: "+msg, "ask the server's admin for a new token")
	case status >= 400 && status != http.StatusNotFound:
		d.report(checkFail, "repo", detail+": "+msg, "see the server's log")
	default:
		d.report(checkOK, "repo", detail+"; the token may read it", "")
	}
}

func (d *doctor) checkTeamDirs(context.Context) {
	for _, s := range d.plan.Specs {
		outcome, detail, fix := teamDirState(s.Dir)
		d.report(outcome, "team dir", detail, fix)
	}
}

// teamDirState checks that dir is a directory this user can write and no
// other user can: someone else's note in it would be pushed to the team.
func teamDirState(dir string) (outcome, detail, fix string) {
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		parent := existingParent(dir)
		if err := writable(parent); err != nil {
			return checkFail, fmt.Sprintf("%s does not exist and %s is not writable: %v", dir, parent, err), "mkdir -p " + dir
		}
		return checkOK, dir + " (created at the first sync)", ""
	}
	switch {
	case err != nil:
		return checkFail, err.Error(), "check the permissions of " + filepath.Dir(dir)
	case !info.IsDir():
		return checkFail, dir + " is not a directory", "move that file away: the team directory must be a directory"
	case info.Mode().Perm()&0o022 != 0:
		return checkFail, fmt.Sprintf("%s is writable by other users (mode %04o): a note they plant there is pushed to your team",
			dir, info.Mode().Perm()), "chmod go-w " + dir
	}
	if err := writable(dir); err != nil {
		return checkFail, fmt.Sprintf("%s is not writable: %v", dir, err), "chmod u+rwx " + dir
	}
	return checkOK, dir, ""
}

// existingParent is the nearest directory above dir that exists.
func existingParent(dir string) string {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil || p == filepath.Dir(p) {
			return p
		}
	}
}

func (d *doctor) checkInotify(context.Context) {
	if d.skipForConfig("inotify") {
		return
	}
	if d.env.inotifyDir == "" {
		d.report(checkSkip, "inotify", "not Linux", "")
		return
	}
	dirs := 0
	for _, s := range d.plan.Specs {
		dirs += countDirs(s.Dir)
	}
	watches, err1 := readSysctl(filepath.Join(d.env.inotifyDir, "max_user_watches"))
	instances, err2 := readSysctl(filepath.Join(d.env.inotifyDir, "max_user_instances"))
	// Headroom for the editors and tools that watch files too.
	needWatches, needInstances := dirs+1024, len(d.plan.Specs)+8
	switch {
	case err1 != nil || err2 != nil:
		d.report(checkFail, "inotify", "cannot read the limits: "+errors.Join(err1, err2).Error(), "check that /proc is mounted")
	case watches < needWatches:
		d.report(checkFail, "inotify", fmt.Sprintf("fs.inotify.max_user_watches is %d; the team directories need %d of them, and other programs more", watches, dirs),
			"sudo sysctl fs.inotify.max_user_watches=524288, and set it in /etc/sysctl.d/ to keep it")
	case instances < needInstances:
		d.report(checkFail, "inotify", fmt.Sprintf("fs.inotify.max_user_instances is %d; the daemon needs one per repo (%d), and other programs more", instances, len(d.plan.Specs)),
			"sudo sysctl fs.inotify.max_user_instances=1024, and set it in /etc/sysctl.d/ to keep it")
	default:
		d.report(checkOK, "inotify", fmt.Sprintf("max_user_watches %d, max_user_instances %d; the team directories need %d %s",
			watches, instances, dirs, plural(dirs, "watch", "watches")), "")
	}
}

// countDirs counts dir and the directories below it, as the watcher
// watches them; a missing dir counts as the one it will be.
func countDirs(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			n++
		}
		return nil
	})
	return max(n, 1)
}

func readSysctl(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// maxClockSkew is how far this machine's clock may be from the server's.
const maxClockSkew = time.Minute

func (d *doctor) checkClock(context.Context) {
	if d.date.IsZero() {
		d.report(checkSkip, "clock", "needs the server's Date", "")
		return
	}
	skew := d.env.now().Sub(d.date).Round(time.Second)
	if skew > maxClockSkew || skew < -maxClockSkew {
		d.report(checkFail, "clock", fmt.Sprintf("this machine's clock is %s off the server's", skew),
			"turn on time synchronisation (timedatectl set-ntp true; on macOS, Date & Time settings)")
		return
	}
	d.report(checkOK, "clock", fmt.Sprintf("within %s of the server's", maxClockSkew), "")
}

// checkAgent reports, for each repo, whether Claude Code will show its
// team notes to the model, by which route, and where it would upload them.
func (d *doctor) checkAgent(ctx context.Context) {
	if len(d.plan.Specs) == 0 {
		return
	}
	a := newAgentChecker(ctx, d.claude)
	for _, s := range d.plan.Specs {
		c := a.check(s.Dir)
		d.report(c.outcome, "agent", s.Repo+": "+c.detail, c.fix)
	}
}

// checkDaemon reports the daemon itself: running, its pid, and the state
// of each repo it syncs.
func (d *doctor) checkDaemon(ctx context.Context) {
	path := cmp.Or(d.socket, daemon.SocketPath(runtimeDir()))
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := daemon.FetchStatus(ctx, path)
	if err != nil {
		d.report(checkFail, "daemon", "no daemon answers on "+path+": "+err.Error(),
			"teammemd service install (or teammemd setup claude) runs it as your service; or start teammemd run yourself")
		return
	}
	states := make([]string, 0, len(st.Repos))
	for _, r := range st.Repos {
		states = append(states, r.Repo+" "+cmp.Or(r.State, "idle"))
	}
	d.report(checkOK, "daemon", fmt.Sprintf("teammemd %s running, pid %d, up %s: %s", st.Version, st.PID,
		d.env.now().Sub(st.Started).Round(time.Second), cmp.Or(strings.Join(states, ", "), "no repos")), "")
}
