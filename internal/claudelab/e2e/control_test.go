package e2e

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/internal/claudelab"
)

// The control for the traffic check of TestTeamNoteReachesTeammate: a
// client without teammemd's settings does try to reach Anthropic's host
// (telemetry, update checks), and each attempt reaches the proxy, so the
// proxy's count of none there means the client tried nothing.
func TestProxySeesClientTraffic(t *testing.T) {
	if os.Getenv(gateEnv) != "1" {
		t.Skipf("set %s=1 as root to run the shipped Claude Code clients (see .ci/run)", gateEnv)
	}
	for _, b := range builds {
		t.Run(b.Version, func(t *testing.T) {
			carol := newUser(t, t.TempDir(), "carol", b, func(*user) claudelab.Script { return claudelab.Script{} })
			if _, err := carol.ask(t.Context(), "Hello."); err != nil {
				t.Fatal(err)
			}
			got := carol.proxy.Attempts()
			if !slices.ContainsFunc(got, func(a string) bool { return strings.HasPrefix(a, "CONNECT api.anthropic.com:443 ") }) {
				t.Errorf("proxy saw %q from a client without teammemd's settings, want a CONNECT to api.anthropic.com:443", got)
			}
		})
	}
}
