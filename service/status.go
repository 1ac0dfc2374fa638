package service

import (
	"context"
	"fmt"
	"io"
	"os"
)

// Report is whether the service is installed, enabled and running.
type Report struct {
	Name      string // what the service is: "systemd user unit"
	Unit      string // the unit file's path
	Installed bool
	State     State // what the manager says of the service's name
}

// Status asks the manager about the service. A unit that is not installed
// is neither enabled nor running as this service, whatever the manager
// answers for its name.
func Status(ctx context.Context, env Env) (Report, error) {
	plan, spec, err := here(env)
	if err != nil {
		return Report{}, err
	}
	_, statErr := os.Stat(plan.Unit.Path)
	r := Report{Name: plan.Name, Unit: plan.Unit.Path, Installed: statErr == nil}
	r.State = env.Manager.State(ctx, env.Runner, spec)
	if !r.Installed {
		r.State.Enabled, r.State.Running = false, false
	}
	return r, nil
}

// Runs reports whether the manager runs the installed service.
func (r Report) Runs() bool { return r.Installed && r.State.Running }

// Print writes the report as four aligned lines and a blank one.
func (r Report) Print(w io.Writer) {
	fmt.Fprintf(w, "%-10s %s %s\n", "service:", r.Name, r.Unit)
	fmt.Fprintf(w, "%-10s %s\n", "installed:", yesNo(r.Installed))
	fmt.Fprintf(w, "%-10s %s\n", "enabled:", yesNo(r.State.Enabled))
	fmt.Fprintf(w, "%-10s %s\n\n", "running:", r.running())
}

// running says whether the manager runs the service, and its word.
func (r Report) running() string {
	if !r.Installed {
		return "no (not installed)"
	}
	return yesNo(r.State.Running) + " (" + r.State.Detail + ")"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
