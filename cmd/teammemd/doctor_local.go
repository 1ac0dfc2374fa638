package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/teammemd/teammemd/checkup"
	"github.com/teammemd/teammemd/server/auth"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/daemon"
)

func (d *doctor) checkRepos(ctx context.Context) {
	if d.skipForConfig("repos") {
		return
	}
	plan, err := planFor(runFlags{config: d.config, client: d.flags}, d.cfg)
	var nc noCheckoutError
	switch {
	case errors.As(err, &nc):
		d.report(checkFail, "repos", "nothing to sync: the config lists no repo, and the current directory is in no git checkout ("+nc.err.Error()+")",
			"list repos as [[daemon.repo]] in the config (or name a config that does with --config FILE), or run teammemd doctor inside the git checkout to sync")
		return
	case err != nil:
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

// ownServer is whether server, a repo's own, speaks the protocol, asked
// once however many repos name it.
func (d *doctor) ownServer(ctx context.Context, server string) checkup.Result {
	r, ok := d.servers[server]
	if !ok {
		r = d.prober.Identity(ctx, server)
		if d.servers == nil {
			d.servers = map[string]checkup.Result{}
		}
		d.servers[server] = r
	}
	return r
}

// checkRepoAccess reports one repo: where it syncs, that a server of its
// own speaks the protocol, and whether its token may read it.
func (d *doctor) checkRepoAccess(ctx context.Context, repo, dir, source, server, tokenFile string) {
	detail := fmt.Sprintf("%s in %s (%s)", repo, dir, source)
	checked := d.reached && d.identity
	if server != d.client.Server {
		// Only a teammemd server's 404 means a repo not written yet.
		if r := d.ownServer(ctx, server); r.Outcome != checkOK {
			d.report(checkFail, "repo", detail+": "+r.Detail, r.Fix)
			return
		}
		checked = true
	}
	cred := d.rule.For(server, tokenFile)
	tok, err := cred.Bearer()
	from := tokenFrom(cred, server)
	from.GitHub = auth.FormOf(tok) == auth.ModeGitHub
	if !checked || err != nil {
		d.report(checkOK, "repo", detail+"; access not checked", "")
		return
	}
	status, msg, err := d.prober.Probe(ctx, server, repo, tok)
	switch {
	case err != nil:
		d.report(checkFail, "repo", detail+": "+err.Error(), checkup.ReachFix(err))
	case status == http.StatusForbidden:
		d.report(checkFail, "repo", detail+": the token has no grant for it: "+msg, from.DeniedFix(repo))
	case status == http.StatusUnauthorized && from.Env != "":
		d.report(checkFail, "repo", detail+": the server refused its token from $"+from.Env+": "+msg, from.RefusedFix())
	case status == http.StatusUnauthorized:
		d.report(checkFail, "repo", detail+": the server refused its token: "+msg, from.RefusedFix())
	case status >= 400 && status != http.StatusNotFound:
		d.report(checkFail, "repo", detail+": "+msg, "see the server's log")
	default:
		d.report(checkOK, "repo", detail+"; the token may read it", "")
	}
}

func (d *doctor) checkTeamDirs(context.Context) {
	for _, s := range d.plan.Specs {
		r := checkup.TeamDir(s.Dir)
		if r.Outcome == checkOK && d.missingSynced(s) {
			continue
		}
		d.report(r.Outcome, "team dir", r.Detail, r.Fix)
	}
}

// missingSynced reports, and says so, a team directory that is not there
// though files were synced from it: the daemon syncs nothing and deletes
// nothing on the server for it until it is back, and never creates it.
func (d *doctor) missingSynced(s daemon.Spec) bool {
	if _, err := os.Stat(s.Dir); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	n, err := memsync.SyncedFrom(memsync.Config{Dir: s.Dir, Repo: s.Repo, Server: cmp.Or(s.Server, d.client.Server), StateDir: d.client.StateDir})
	if err != nil || n == 0 {
		return false
	}
	d.report(checkFail, "team dir", fmt.Sprintf("%s is missing, but %d files were synced from it: nothing is synced or deleted on the server for it until it exists again", s.Dir, n),
		"mkdir -p "+s.Dir+" (the daemon then writes the notes back from the server), or put back the directory that was moved")
	return true
}

func (d *doctor) checkInotify(context.Context) {
	if d.skipForConfig("inotify") {
		return
	}
	dirs := make([]string, len(d.plan.Specs))
	for i, s := range d.plan.Specs {
		dirs[i] = s.Dir
	}
	r := checkup.Inotify(d.env.inotifyDir, dirs)
	d.report(r.Outcome, "inotify", r.Detail, r.Fix)
}

func (d *doctor) checkClock(context.Context) {
	r := checkup.Clock(d.env.now(), d.date)
	d.report(r.Outcome, "clock", r.Detail, r.Fix)
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
// of each repo it syncs; then a last reload of the config that failed, and
// each repo it stopped until its token or config changes, with the
// daemon's reason and fix.
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
		states = append(states, laneName(r)+" "+cmp.Or(r.State, "idle"))
	}
	d.report(checkOK, "daemon", fmt.Sprintf("teammemd %s running, pid %d, up %s: %s", st.Version, st.PID,
		d.env.now().Sub(st.Started).Round(time.Second), cmp.Or(strings.Join(states, ", "), "no repos")), "")
	if st.ReloadError != "" {
		d.report(checkFail, "daemon", "its last reload of the config failed: "+st.ReloadError+"; it runs the repos of the config it had",
			fmt.Sprintf("fix the config, then reload the daemon (systemctl --user reload teammemd, or kill -HUP %d)", st.PID))
	}
	for _, r := range st.Repos {
		if r.Halted == "" {
			continue
		}
		d.report(checkFail, "daemon", laneName(r)+": "+r.State+", nothing syncs", r.Halted)
	}
	d.reportDaemonSkipped(st)
}

// reportDaemonSkipped fails for each repo the daemon did not start, with
// the daemon's reason: what the doctor finds in its own environment may
// differ from what the daemon found in its (a login, $TEAMMEMD_TOKEN). A
// Claude Code project that discovery left out is no failure.
func (d *doctor) reportDaemonSkipped(st daemon.Status) {
	for _, s := range st.Skipped {
		if s.DiscoveredProject() {
			continue
		}
		d.report(checkFail, "daemon", s.Source+": not synced: "+s.Reason,
			fmt.Sprintf("as the reason says, then reload the daemon (systemctl --user reload teammemd, or kill -HUP %d); a change to its environment needs a restart", st.PID))
	}
}

// laneName names a repo the daemon syncs: its slug, with "(personal
// lane)" for a personal lane's, which shares its project's slug.
func laneName(r daemon.RepoStatus) string {
	if r.Lane == daemon.LanePersonal {
		return r.Repo + " (personal lane)"
	}
	return r.Repo
}
