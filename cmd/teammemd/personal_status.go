package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/checkup"
	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/personal"
)

// newPersonalStatusCmd is "teammemd personal status".
func newPersonalStatusCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show your personal key, your lanes on the server and which projects they hold",
		Long: `Show the personal lane: the ID of this machine's personal key and where it
is kept, the lanes the server holds for you (count, entries, bytes of
ciphertext, quota), which local project maps to which lane, and whether the
daemon runs. The server sees no project names: the mapping is worked out
here, from the key. Exits 1 when the lane cannot run: no key here, or the
key was rotated on another machine.`,
		Example: `  teammemd personal status
  teammemd personal status --json`,
		Args: noArgs,
	}
	var f personalFlags
	f.register(cmd.Flags())
	asJSON := jsonFlag(cmd.Flags(), "the personal lane's status")
	socket := cmd.Flags().String("socket", "", "the daemon's control socket (default "+daemon.SocketPath(runtimeDir())+")")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
		st, err := personalStatus(ctx, f, *socket)
		if err != nil {
			return err
		}
		if *asJSON {
			err = writeJSON(stdout, st)
		} else {
			err = printPersonalStatus(stdout, st)
		}
		if err == nil && st.Problem != "" {
			return exitError{code: exitFailure}
		}
		return err
	})
	return cmd
}

// personalStatus gathers the personal lane's status.
func personalStatus(ctx context.Context, f personalFlags, socket string) (personalStatusJSON, error) {
	env, err := f.open()
	if err != nil {
		return personalStatusJSON{}, err
	}
	st := personalStatusJSON{Server: env.server, Lanes: []api.LaneInfo{}, Projects: []personalProject{}}
	keys, kerr := env.keys.Load(ctx, env.server)
	if kerr != nil && !errors.Is(kerr, personal.ErrNoKeys) {
		return st, kerr
	}
	lanes, err := env.client.PersonalLanes(ctx)
	if err != nil {
		return st, explainPersonal(err)
	}
	st.ServerKeyID, st.Quota, st.Lanes = lanes.KeyID, lanes.Quota, orEmpty(lanes.Lanes)
	if keys.Current != nil {
		st.KeyID, st.KeptIn, st.Rotating = keys.Current.ID(), env.keys.Where(ctx, env.server), len(keys.Previous) > 0
		st.Projects = personalProjects(env, keys.Current, lanes.Lanes)
	}
	st.Problem = personalProblem(st, env.cfg.Personal.On())
	st.Daemon = personalDaemon(ctx, socket)
	return st, nil
}

// personalProblem says why the lane cannot run, "" when it can.
func personalProblem(st personalStatusJSON, enabled bool) string {
	switch {
	case !enabled:
		return "[personal] enabled = false in the config: the daemon runs no personal lane"
	case st.ServerKeyID == "":
		return "no personal key on the server: run teammemd personal init on your first machine"
	case st.KeyID == "":
		return "no personal key on this machine: run teammemd personal join"
	case st.KeyID != st.ServerKeyID && !st.Rotating:
		return personal.ErrRotatedElsewhere.Error()
	}
	return ""
}

// personalProjects maps each project the daemon syncs, and the user-level
// files, to its lane under k.
func personalProjects(env personalEnv, k *personal.Key, lanes []api.LaneInfo) []personalProject {
	out := []personalProject{}
	plan, err := planFor(runFlags{config: env.flags.config, client: env.flags.client}, env.cfg)
	if err == nil {
		for _, s := range plan.Specs {
			if dir, err := memsync.PrivateMemory(s.Dir); err == nil {
				out = append(out, projectLane(k, s.Repo, dir, lanes))
			}
		}
	}
	if p := projectLane(k, personal.UserProject, "", lanes); p.OnServer {
		out = append(out, p)
	}
	return out
}

func projectLane(k *personal.Key, project, dir string, lanes []api.LaneInfo) personalProject {
	p := personalProject{Project: project, Dir: dir, Lane: k.LaneID(project)}
	for _, l := range lanes {
		if l.Lane == p.Lane {
			p.OnServer, p.Entries = true, l.Entries
		}
	}
	return p
}

// personalDaemon is what the daemon on socket says of itself; nil when it
// does not answer.
func personalDaemon(ctx context.Context, socket string) *personalDaemonJSON {
	path := cmp.Or(socket, daemon.SocketPath(runtimeDir()))
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ds, err := daemon.FetchStatus(ctx, path)
	if err != nil {
		return &personalDaemonJSON{Running: false, Detail: "no daemon answers on " + path}
	}
	out := &personalDaemonJSON{Running: true, PID: ds.PID, Version: ds.Version}
	for _, r := range ds.Repos {
		if r.Lane == daemon.LanePersonal {
			out.Lanes = append(out.Lanes, personalDaemonLane{Project: r.Repo, Dir: r.Dir, State: r.State, Stopped: r.Halted})
		}
	}
	out.Detail = fmt.Sprintf("%d personal %s running", len(out.Lanes), checkup.Plural(len(out.Lanes), "lane", "lanes"))
	return out
}

func printPersonalStatus(w io.Writer, st personalStatusJSON) error {
	var b strings.Builder
	p := api.Printable
	fmt.Fprintf(&b, "server:     %s\n", p(st.Server))
	if st.KeyID != "" {
		fmt.Fprintf(&b, "key:        %s, kept in %s\n", st.KeyID, p(st.KeptIn))
	} else {
		fmt.Fprintf(&b, "key:        none on this machine\n")
	}
	if st.Rotating {
		fmt.Fprintf(&b, "rotation:   unfinished; run teammemd personal rotate-key to finish it\n")
	}
	fmt.Fprintf(&b, "server key: %s\n", cmp.Or(st.ServerKeyID, "none"))
	q := st.Quota
	fmt.Fprintf(&b, "lanes:      %d on the server, %d of %d entries, %s of %s\n", len(st.Lanes), q.UsedEntries, q.MaxEntries, byteSize(q.UsedBytes), byteSize(q.MaxBytes))
	for _, l := range st.Lanes {
		fmt.Fprintf(&b, "  lane %s: %d entries, %s, key %s\n", l.Lane, l.Entries, byteSize(l.Bytes), l.KeyID)
	}
	for _, pr := range st.Projects {
		where := "not on the server yet"
		if pr.OnServer {
			where = fmt.Sprintf("%d entries", pr.Entries)
		}
		fmt.Fprintf(&b, "project %s%s: lane %s (%s)\n", p(pr.Project), dirSuffix(pr.Dir), pr.Lane, where)
	}
	if d := st.Daemon; d != nil && d.Running {
		fmt.Fprintf(&b, "daemon:     teammemd %s running, pid %d, %s\n", p(d.Version), d.PID, d.Detail)
		for _, l := range d.Lanes {
			fmt.Fprintf(&b, "  %s in %s: %s%s\n", p(l.Project), p(l.Dir), p(cmp.Or(l.State, "idle")), causeSuffix(l.Stopped))
		}
	} else if d != nil {
		fmt.Fprintf(&b, "daemon:     not running (%s)\n", p(d.Detail))
	}
	if st.Problem != "" {
		fmt.Fprintf(&b, "problem:    %s\n", st.Problem)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dirSuffix(dir string) string {
	if dir == "" {
		return ""
	}
	return " in " + api.Printable(dir)
}

// byteSize prints n bytes in the largest unit that keeps it readable.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
