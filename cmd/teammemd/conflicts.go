package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/daemon"
)

// newConflictsCmd lists the conflict copies of every repo; its resolve
// settles one.
func newConflictsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "conflicts",
		Short: "List the conflict copies of each repo, or settle one (resolve)",
		Long: `List the conflict copies of every repo this machine syncs, and of its
personal lanes: when the server and a local edit changed the same note, the
daemon keeps the server's and saves the other as a conflict copy. A personal
lane's copies are listed under its project, as "acme/app (personal lane)".
"teammemd conflicts resolve" settles one; a personal lane's with --personal,
or named by the copy's path.`,
		Example: `  teammemd conflicts
  teammemd conflicts --json
  teammemd conflicts resolve notes/deploy.md --keep local
  teammemd conflicts resolve plans.md --personal --keep local`,
	}
	fs := cmd.Flags()
	var cf clientFlags
	cf.register(fs)
	config := fs.String("config", "", "config file (default $TEAMMEMD_CONFIG, then $XDG_CONFIG_HOME/teammemd/config.toml)")
	asJSON := jsonFlag(fs, "the conflict copies")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, stderr io.Writer) error {
		return runConflicts(ctx, cf, *config, *asJSON, stdout, stderr)
	})
	cmd.AddCommand(newResolveCmd())
	return cmd
}

// runConflicts lists the conflict copies of every repo and personal lane.
// A personal lane is named by its project where this machine's key tells
// which; a key that cannot be read leaves the lanes named by their state,
// and says why on stderr.
func runConflicts(ctx context.Context, cf clientFlags, config string, asJSON bool, stdout, stderr io.Writer) error {
	cfg, err := loadConfig(config)
	if err != nil {
		return err
	}
	repos, err := memsync.ConflictsIn(cf.resolve(cfg.Client).StateDir)
	if err != nil {
		return err
	}
	projects, err := laneProjects(ctx, syncFlags{config: config, client: cf}, cfg, repos)
	if err != nil {
		fmt.Fprintln(stderr, "teammemd: personal lanes are named by their state, not their project:", err)
	}
	if asJSON {
		return writeJSON(stdout, conflictList(repos, projects))
	}
	return printConflicts(stdout, repos, projects)
}

// printConflicts writes one line per conflict copy: repo (a personal
// lane's project, from projects), key, when, the side that lost, size and
// where the copy is; then how to settle one.
func printConflicts(w io.Writer, repos []memsync.RepoConflicts, projects map[string]string) error {
	var team, lanes int
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REPO\tKEY\tWHEN\tLOST\tSIZE\tCOPY")
	for _, r := range repos {
		for _, c := range r.Conflicts {
			if r.Lane == "" {
				team++
			} else {
				lanes++
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", api.Printable(repoLabel(r, projects)), api.Printable(c.Key),
				c.Time.UTC().Format("2006-01-02 15:04:05Z"), lostSide(c.Source), copySize(c.Path), api.Printable(c.Path))
		}
	}
	if team+lanes == 0 {
		_, err := fmt.Fprintln(w, "no conflict copies")
		return err
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if team > 0 {
		fmt.Fprintln(w, "Settle one with: teammemd conflicts resolve KEY --keep local|server|FILE (in its checkout or team directory, anywhere when one repo of the config has that copy, or with --dir and --repo)")
	}
	if lanes > 0 {
		fmt.Fprintln(w, "Settle a personal lane's copy with: teammemd conflicts resolve KEY --personal --keep local|server|FILE (anywhere when one lane has that copy, or with --repo and its project; or name the copy by its path)")
	}
	return nil
}

// personalLaneSuffix follows a personal lane's project where conflicts
// names it.
const personalLaneSuffix = " (personal lane)"

// repoLabel names r's repo for the listing: a personal lane by its
// project when projects knows it, else by its state.
func repoLabel(r memsync.RepoConflicts, projects map[string]string) string {
	if p, ok := projects[r.Repo]; ok && r.Lane != "" {
		return p + personalLaneSuffix
	}
	return r.Repo
}

// lostSide says which version a copy keeps: the side that lost.
func lostSide(source string) string {
	if source == "local" {
		return "local edit"
	}
	return source
}

// copySize is a copy's size in bytes, or why it has none.
func copySize(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "missing"
	}
	return strconv.FormatInt(fi.Size(), 10)
}

// newResolveCmd is "conflicts resolve".
func newResolveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "resolve KEY --keep local|server|FILE",
		Short: "Settle one conflict copy: keep the local copy, the server's version or a file",
		Long: `Settle one conflict copy, named by its note's key or the copy's path: keep
local (the conflict copy), server (the version the server holds) or the
content of a FILE, say a merge of both. What is kept is pushed as a new
revision and the copy removed. Run it in the note's checkout; elsewhere it
settles the copy in the one repo of the config that has it, or name the
repo with --repo and --dir.

With --personal, KEY names a note of a personal lane (a path in the
project's memory directory, or CLAUDE.md and rules/**/*.md of the user files'
lane): it settles the copy of the one lane that has it, the one beside the
checkout in the current directory, or the lane of the project --repo names
(~user for the user files), as teammemd conflicts lists it. A copy named by
its path needs no --personal: the path tells its lane. A personal lane's
note is kept and pushed in its lane alone, encrypted as the daemon does.`,
		Example: `  teammemd conflicts resolve notes/deploy.md --keep local
  teammemd conflicts resolve notes/deploy.md --keep merged.md --repo acme/app --dir ~/src/app/team
  teammemd conflicts resolve plans.md --personal --keep server
  teammemd conflicts resolve CLAUDE.md --personal --repo '~user' --keep local`,
		Args: wantArgs(1, 1, "one KEY (or the copy's path)"),
	}
	c := &resolveCommand{}
	fs := c.flags(cmd.Flags())
	keep := fs.String("keep", "", "what to keep: local (the conflict copy), server (the version the server holds) or a `FILE` (say, a merge of both)")
	fs.BoolVar(&c.personal, "personal", false, "KEY names a note of a personal lane; --repo then names the lane's project (~user for the user files)")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		return runResolve(ctx, c, keep, args, stdout, stderr)
	})
	return cmd
}

// resolveCommand is "conflicts resolve": a one-repo command, whose copy
// may be of a personal lane.
type resolveCommand struct {
	repoCommand
	personal bool
}

// runResolve settles one conflict copy.
func runResolve(ctx context.Context, c *resolveCommand, keep *string, pos []string, stdout, stderr io.Writer) error {
	if len(pos) != 1 || *keep == "" {
		return usageError{errors.New("conflicts resolve takes one KEY (or the copy's path) and --keep local|server|FILE")}
	}
	eng, sc, cp, err := c.target(ctx, pos[0], stderr)
	if err != nil {
		return err
	}
	mode, kept, content, err := keptContent(*keep, cp)
	if err != nil {
		return err
	}
	rep, err := eng.Resolve(ctx, cp, mode, kept, content)
	if ferr := sc.Flush(); ferr != nil {
		fmt.Fprintln(stderr, "teammemd: scan verdict cache not saved:", ferr)
	}
	printReport(stdout, rep, err == nil)
	if err != nil {
		return explainSyncError(err)
	}
	fmt.Fprintf(stdout, "resolved  %s: kept %s; removed %s\n", api.Printable(cp.Key), api.Printable(kept), api.Printable(cp.Path))
	return nil
}

// target finds the repo or personal lane of the conflict copy arg names,
// builds its engine and returns the copy: a personal lane's with
// --personal, with --repo naming a lane, or with arg the path of a copy a
// personal lane records; else a team repo's, as before personal lanes.
func (c *resolveCommand) target(ctx context.Context, arg string, stderr io.Writer) (*memsync.Engine, *scan.Scanner, memsync.Conflict, error) {
	if c.personal || isLaneName(c.f.repo) || isLaneCopy(c.f, arg) {
		return laneCopyTarget(ctx, &c.repoCommand, arg, stderr)
	}
	return copyTarget(&c.repoCommand, arg, stderr)
}

// copyTarget finds the repo of the conflict copy key names and the copy:
// the repo found as for any one-repo command; else, run outside the
// config's repos with no --dir or --repo, the one configured repo whose
// state records a copy of key, as teammemd conflicts lists them.
func copyTarget(c *repoCommand, key string, stderr io.Writer) (*memsync.Engine, *scan.Scanner, memsync.Conflict, error) {
	eng, sc, err := c.engine(stderr)
	if err != nil {
		var usage usageError
		if c.f.dir != "" || c.f.repo != "" || !errors.As(err, &usage) {
			return nil, nil, memsync.Conflict{}, err
		}
		eng, sc, err = configuredCopy(c, key, err, stderr)
		if err != nil {
			return nil, nil, memsync.Conflict{}, err
		}
	}
	cp, err := findCopy(eng, key)
	return eng, sc, cp, err
}

// configuredCopy builds the engine of the one configured repo whose state
// records a conflict copy of key; with none it returns notFound, with
// several an error naming them.
func configuredCopy(c *repoCommand, key string, notFound error, stderr io.Writer) (*memsync.Engine, *scan.Scanner, error) {
	cfg, err := loadConfig(c.f.config)
	if err != nil {
		return nil, nil, err
	}
	recorded, err := memsync.ConflictsIn(c.f.client.resolve(cfg.Client).StateDir)
	if err != nil {
		return nil, nil, err
	}
	named := copyNamed(key)
	var holding []daemon.Spec
	for _, s := range configSpecs(c.f, cfg) {
		if slices.ContainsFunc(recorded, func(r memsync.RepoConflicts) bool {
			return r.Repo == s.Repo && slices.ContainsFunc(r.Conflicts, named)
		}) {
			holding = append(holding, s)
		}
	}
	switch len(holding) {
	case 0:
		return nil, nil, notFound
	case 1:
		s := holding[0]
		return buildSyncEngine(specTarget(s).withTarget(c.f, cfg), cfg, s.Dir, s.Repo, stderr)
	}
	return nil, nil, usageError{fmt.Errorf("%d repos have a conflict copy of %s: run this in one's checkout or team directory, or pass --dir and --repo; the repos: %s",
		len(holding), api.Printable(key), specNames(holding))}
}

// copyNamed reports whether a conflict copy is one key names: a copy of
// the note key, or the copy at path key.
func copyNamed(key string) func(memsync.Conflict) bool {
	abs, _ := filepath.Abs(key)
	return func(c memsync.Conflict) bool { return c.Key == key || c.Path == abs }
}

// findCopy returns the repo's conflict copy of key, or at path key. A key
// with several copies must be named by the copy's path.
func findCopy(eng *memsync.Engine, key string) (memsync.Conflict, error) {
	all, err := eng.Conflicts()
	if err != nil {
		return memsync.Conflict{}, err
	}
	named := copyNamed(key)
	var found []memsync.Conflict
	for _, c := range all {
		if named(c) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		return memsync.Conflict{}, fmt.Errorf("no conflict copy of %s in this repo (teammemd conflicts lists them; for a personal lane's copy, add --personal)", key)
	case 1:
		return found[0], nil
	}
	msg := fmt.Sprintf("%s has %d conflict copies; name the one to settle by its path:", key, len(found))
	for _, c := range found {
		msg += "\n  " + api.Printable(c.Path)
	}
	return memsync.Conflict{}, usageError{errors.New(msg)}
}

// keptContent turns --keep into the engine's mode, what the log records,
// and the content to push.
func keptContent(keep string, c memsync.Conflict) (mode, kept string, content []byte, err error) {
	switch keep {
	case memsync.KeepServer:
		return memsync.KeepServer, memsync.KeepServer, nil, nil
	case memsync.KeepLocal:
		data, err := os.ReadFile(c.Path)
		if err != nil {
			return "", "", nil, fmt.Errorf("read conflict copy: %w", err)
		}
		return memsync.KeepLocal, memsync.KeepLocal, data, nil
	}
	path, err := filepath.Abs(keep)
	if err != nil {
		return "", "", nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "", nil, fmt.Errorf("--keep %s: not local, not server, and not a file that can be read: %w", keep, err)
	}
	return memsync.KeepFile, path, data, nil
}
