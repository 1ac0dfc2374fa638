// Package route decides how an installed Claude Code client comes to load
// the team directory teammemd syncs, and makes it so: it finds the client,
// its version and the kind of login (Find), chooses a route that works for
// that version (Choose), merges the route's settings into Claude Code's
// settings.json with a backup and a record that undoes it exactly (Plan,
// Apply, Undo), and tells whether a client as configured will see the team's
// notes and whether it would upload them elsewhere (Inspect).
//
// The routes, as the shipped clients behave:
//   - Hook: a SessionStart hook runs "teammemd hook session-start", whose
//     output (an index of the team's notes) Claude Code adds to the
//     session's context. Every version that runs hooks takes it.
//   - Stores: from 2.1.210 the client has a team memory directory only when
//     CLAUDE_MEMORY_STORES names a store of scope "team"; with one store of
//     scope "user" beside it, that directory is memory/team/, the one
//     teammemd syncs, and the model is told to write team notes there.
//     With a claude.ai login the client would then sync those stores with
//     Anthropic's host itself, so this route always comes with
//     CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, which the user consents to.
package route

import (
	"errors"
	"fmt"

	"github.com/Masterminds/semver/v3"
)

// Route is one way for the client to load the team directory.
type Route string

// The routes.
const (
	// Hook is the SessionStart hook that prints the team's index.
	Hook Route = "hook"
	// Stores is CLAUDE_MEMORY_STORES with a user and a team store, plus the
	// hook.
	Stores Route = "stores"
)

// The versions where the client's handling of team memory changed.
var (
	// StoresSince is the first version that reads CLAUDE_MEMORY_STORES
	// and no longer speaks the team_memory endpoints.
	StoresSince = semver.MustParse("2.1.210")
	// FixedHostSince is the first version whose team_memory sync ignores
	// TEAM_MEMORY_SYNC_URL and talks to Anthropic's host only.
	FixedHostSince = semver.MustParse("2.1.142")
	// HooksSince is the first version with SessionStart hooks.
	HooksSince = semver.MustParse("1.0.62")
)

// Want is what the user asked of Choose.
type Want struct {
	// Route is the route asked for; empty chooses.
	Route Route
	// TrafficOff is the user's consent to
	// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1.
	TrafficOff bool
}

// Choice is the route chosen for a client and why.
type Choice struct {
	Route Route
	// TrafficOff writes CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1.
	TrafficOff bool
	// Why says why this route, one sentence a line.
	Why []string
	// TradeOffs says what the route costs the user.
	TradeOffs []string
}

// ErrNeedsConsent is returned when a route needs the client's own traffic
// turned off and the user has not said so.
var ErrNeedsConsent = errors.New("the stores route turns off Claude Code's nonessential traffic " +
	"(CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1: telemetry, error reports, update checks and its own memory sync), " +
	"so that the client never uploads team notes to Anthropic's host; pass --disable-client-traffic to accept that")

// Choose picks the route for client c. Without a route asked for, it takes
// the stores route when the client has it and the user consented to the
// traffic trade-off, else the hook route.
func Choose(c Client, w Want) (Choice, error) {
	switch w.Route {
	case "", Hook, Stores:
	default:
		return Choice{}, fmt.Errorf("unknown route %q: want hook or stores", w.Route)
	}
	if c.Version != nil && c.Version.LessThan(HooksSince) {
		return Choice{}, fmt.Errorf("this Claude Code, %s, predates SessionStart hooks (%s) and team memory stores (%s): update it (claude update)",
			c.Version, HooksSince, StoresSince)
	}
	stores := c.Version != nil && !c.Version.LessThan(StoresSince)
	if w.Route == Stores && !stores {
		return Choice{}, fmt.Errorf("the stores route needs Claude Code %s or later, and %s: update it (claude update), or use the hook route",
			StoresSince, c.describe())
	}
	if w.Route == Stores && !w.TrafficOff {
		return Choice{}, ErrNeedsConsent
	}
	if !stores && c.Version != nil && c.Login.Uploads() && !w.TrafficOff {
		return Choice{}, fmt.Errorf("%s with %s uploads memory/team/, where teammemd writes the team's notes, to Anthropic's host when its team memory feature is on for the account; "+
			"pass --disable-client-traffic (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1: also telemetry, error reports and update checks off), or update Claude Code (claude update)",
			c.describe(), c.Login)
	}
	if w.Route == "" && stores && w.TrafficOff {
		w.Route = Stores
	}
	if w.Route == Stores {
		return storesChoice(c), nil
	}
	return hookChoice(c, stores, w.TrafficOff), nil
}

// storesChoice explains the stores route.
func storesChoice(c Client) Choice {
	ch := Choice{Route: Stores, TrafficOff: true, Why: []string{
		fmt.Sprintf("%s reads CLAUDE_MEMORY_STORES: with a user and a team store its team memory directory is memory/team/, the one teammemd syncs, and the model is told to write team notes there.", c.describe()),
		"Notes are recalled by their frontmatter description; the SessionStart hook also lists the team's notes at the start of every session.",
	}}
	ch.TradeOffs = append(ch.TradeOffs,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 turns off the client's telemetry, error reports, update checks and its own memory sync with Anthropic's host.",
		"With stores set, the client no longer puts your private MEMORY.md into the prompt; it recalls private notes by their description too.")
	if c.Login.Uploads() {
		ch.Why = append(ch.Why, "Your claude.ai login would have the client sync these stores with Anthropic's host; the traffic setting stops that.")
	}
	return ch
}

// hookChoice explains the hook route.
func hookChoice(c Client, stores, trafficOff bool) Choice {
	ch := Choice{Route: Hook, TrafficOff: trafficOff, Why: []string{
		"A SessionStart hook (teammemd hook session-start) lists the team's notes, with who changed each and when, at the start of every session, and tells the agent where to write team notes. Every version that runs hooks takes it.",
	}}
	switch {
	case c.Version == nil:
		ch.Why = append(ch.Why, "No Claude Code client was found, so the route that works on every version was chosen.")
	case stores:
		ch.Why = append(ch.Why, fmt.Sprintf("%s also has the stores route (the team directory in the system prompt, recall by description); "+
			"it needs --disable-client-traffic, which turns off the client's nonessential traffic.", c.describe()))
	default:
		ch.Why = append(ch.Why, fmt.Sprintf("%s has no CLAUDE_MEMORY_STORES (it came in %s), so the hook is its route.", c.describe(), StoresSince))
	}
	if trafficOff {
		ch.TradeOffs = append(ch.TradeOffs, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 turns off the client's telemetry, error reports, update checks and its own memory sync.")
	}
	return ch
}
