package route

import (
	"errors"
	"fmt"
)

// The personal lane syncs the client's private memory (memory/, without
// team/) through teammemd, encrypted. A client that syncs that memory with
// Anthropic's host itself would fight it over the same files, so with the
// personal lane on its own memory sync must stay off: with the stores
// route, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 keeps every store,
// the user store included, on the machine.

// ErrPersonalNeedsConsent is returned by CheckPersonal for a client that
// would sync the private memory itself and a user who has not consented
// to turning that off.
var ErrPersonalNeedsConsent = errors.New("the personal lane is on, and this Claude Code client may sync your private memory with Anthropic's host itself; " +
	"the two would fight over memory/: pass --disable-client-traffic (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1: also telemetry, error reports and update checks off)")

// SyncsPrivateMemory reports whether client c, logged in as it is, may
// sync its private memory with Anthropic's host unless its nonessential
// traffic is off.
func SyncsPrivateMemory(c Client) bool { return c.Login.Uploads() }

// CheckPersonal checks choice for a machine with the personal lane on,
// and says how the client's own private memory sync stays off.
func CheckPersonal(c Client, choice Choice) (string, error) {
	switch {
	case choice.TrafficOff && choice.Route == Stores:
		return "personal lane on: CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 keeps Claude Code's memory stores, the user store (memory/) included, on this machine; teammemd syncs memory/ encrypted", nil
	case choice.TrafficOff:
		return "personal lane on: CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 keeps Claude Code's own memory sync off; teammemd syncs memory/ encrypted", nil
	case SyncsPrivateMemory(c):
		return "", ErrPersonalNeedsConsent
	}
	return fmt.Sprintf("personal lane on: %s, logged in with %s, does not sync its private memory itself; teammemd syncs memory/ encrypted", c.describe(), c.Login), nil
}

// PrivateSyncOff tells whether client c, with the settings Inspect reads
// for checkout, keeps its private memory off Anthropic's host, and why.
func PrivateSyncOff(c Client, home, checkout string, getenv func(string) string) (bool, string) {
	e := readEffective(home, checkout, getenv)
	switch {
	case trafficOff(e.env):
		return true, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is set: Claude Code's own memory sync is off"
	case !SyncsPrivateMemory(c):
		return true, fmt.Sprintf("%s, logged in with %s, does not sync its private memory itself", c.describe(), c.Login)
	}
	return false, fmt.Sprintf("%s, logged in with %s and its nonessential traffic on, may sync your private memory with Anthropic's host while teammemd syncs it too", c.describe(), c.Login)
}
