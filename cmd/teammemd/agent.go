package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/route"
	"github.com/teammemd/teammemd/sync/daemon"
)

// agentCheck is whether Claude Code shows one repo's team notes to the
// model, as doctor and status report it.
type agentCheck struct {
	outcome string // checkOK, checkFail or checkSkip
	detail  string
	fix     string
}

// agentChecker inspects the Claude Code client once for many repos.
type agentChecker struct {
	client route.Client
	home   string
	err    error
}

// newAgentChecker finds the client at path, or claude on PATH.
func newAgentChecker(ctx context.Context, path string) agentChecker {
	home, err := claude.Home()
	return agentChecker{client: route.Find(ctx, path), home: home, err: err}
}

// check says whether the client loads the team directory dir.
func (a agentChecker) check(dir string) agentCheck {
	if a.err != nil {
		return agentCheck{checkSkip, "Claude Code: " + a.err.Error(), ""}
	}
	checkout, ok := claude.CheckoutOf(a.home, dir)
	if !ok {
		return agentCheck{checkSkip, "Claude Code reads no team notes from " + dir + ": it reads a project's, in " +
			filepath.Join(a.home, "projects", "<project>", "memory", "team") + "; other agents read the team's notes through teammemd mcp", ""}
	}
	v := route.Inspect(a.client, a.home, checkout, os.Getenv)
	if v.Client.Path == "" {
		return agentCheck{checkSkip, "Claude Code: " + v.Why + "; " + v.Fix, ""}
	}
	c := agentCheck{outcome: checkOK}
	if v.Loads() {
		c.detail = fmt.Sprintf("%s loads these team notes (route: %s)", clientName(v.Client), joinRoutes(v.Routes))
	} else {
		c.outcome, c.detail, c.fix = checkFail, clientName(v.Client)+" will not show these team notes to the model: "+v.Why, v.Fix
	}
	if v.MCP != "" {
		c.outcome = checkFail
		c.detail += "; " + v.MCP
		c.fix = mcpFix(c.fix, v.MCPFix)
	}
	if len(v.Warnings) > 0 {
		c.outcome = checkFail
		c.detail += "; " + strings.Join(v.Warnings, "; ")
		c.fix = cmp.Or(c.fix, "teammemd setup claude --disable-client-traffic")
	}
	return c
}

// mcpFix is the fix of a check whose MCP server cannot start, beside fix,
// the route's own: the user config's fix comes first, since setup refuses
// to write while that file is broken; else setup registers the server
// again.
func mcpFix(fix, configFix string) string {
	switch {
	case configFix == "":
		return cmp.Or(fix, "teammemd setup claude (with the teammemd you use now)")
	case fix == "":
		return configFix
	}
	return configFix + "; then " + fix
}

// clientName names the client and its version.
func clientName(c route.Client) string {
	if c.Version == nil {
		return "Claude Code (" + c.Path + ", version unknown)"
	}
	return "Claude Code " + c.Version.String()
}

func joinRoutes(rs []route.Route) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}

// printAgents writes, for each repo of st, whether Claude Code shows its
// team notes to the model.
func printAgents(w io.Writer, a agentChecker, repos []daemon.RepoStatus) error {
	if len(repos) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\nagent\n")
	for _, r := range repos {
		if r.Lane == daemon.LanePersonal {
			continue // Claude Code reads the memory directory itself
		}
		c := a.check(r.Dir)
		fmt.Fprintf(&b, "  %s: %s", api.Printable(r.Repo), api.Printable(c.detail))
		if c.fix != "" {
			fmt.Fprintf(&b, "; fix: %s", c.fix)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
