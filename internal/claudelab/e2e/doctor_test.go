package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/internal/proclab"
)

// doctor runs teammemd doctor in the user's checkout, as the user, with
// the user's claude and env added, and returns what it printed; doctor
// exits 1 when a check fails, which is no error here.
func (u *user) doctor(ctx context.Context, lab *proclab.Lab, env ...string) (string, error) {
	cmd := exec.CommandContext(ctx, lab.Bin, "doctor", "--claude", u.claude)
	cmd.Dir = u.checkout
	cmd.Env = append(append([]string{"PATH=" + os.Getenv("PATH")}, u.shellEnv()...), env...)
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return string(out), err
	}
	return string(out), nil
}

// checkDoctor asserts that doctor, run as u, has an agent line that
// starts with want.
func checkDoctor(t *testing.T, lab *proclab.Lab, u *user, when, want string, env ...string) {
	t.Helper()
	out, err := u.doctor(t.Context(), lab, env...)
	if err != nil {
		t.Fatalf("teammemd doctor %s: %v\n%s", when, err, out)
	}
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, want) {
			return
		}
	}
	t.Errorf("teammemd doctor %s has no line starting %q:\n%s", when, want, out)
}
