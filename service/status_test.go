package service

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// State reads what systemctl answers: the unit is enabled only when
// is-enabled says so, and running while active or reloading.
func TestSystemdState(t *testing.T) {
	tests := []struct {
		enabled, active string
		want            State
	}{
		{"enabled\n", "active\n", State{Enabled: true, Running: true, Detail: "active"}},
		{"enabled\n", "reloading\n", State{Enabled: true, Running: true, Detail: "reloading"}},
		{"enabled\n", "failed\n", State{Enabled: true, Detail: "failed"}},
		{"disabled\n", "inactive\n", State{Detail: "inactive"}},
		{"enabled-runtime\n", "activating\n", State{Detail: "activating"}},
		{"", "", State{}},
	}
	for _, tt := range tests {
		rec := &recorder{answers: map[string]string{
			"systemctl --user is-enabled teammemd.service": tt.enabled,
			"systemctl --user is-active teammemd.service":  tt.active,
		}, fail: map[string]bool{"systemctl --user is-active teammemd.service": tt.active != "active\n"}}
		if got := (Systemd{}).State(context.Background(), rec, Spec{}); got != tt.want {
			t.Errorf("State(is-enabled %q, is-active %q) = %+v, want %+v", tt.enabled, tt.active, got, tt.want)
		}
	}
}

// State reads launchctl print: loaded when it answers, running when the
// agent's state is, and enabled unless print-disabled lists it disabled.
func TestLaunchdState(t *testing.T) {
	const (
		print    = "launchctl print gui/501/com.teammemd.daemon"
		disabled = "launchctl print-disabled gui/501"
	)
	tests := []struct {
		print, disabled string
		loaded          bool
		want            State
	}{
		{"gui/501/com.teammemd.daemon = {\n\tstate = running\n\tpid = 42\n}\n", "disabled services = {\n}\n", true,
			State{Enabled: true, Running: true, Detail: "running"}},
		{"gui/501/com.teammemd.daemon = {\n\tstate = not running\n}\n", "disabled services = {\n\t\"com.teammemd.daemon\" => disabled\n}\n", true,
			State{Detail: "loaded"}},
		{"", "disabled services = {\n\t\"com.teammemd.daemon\" => true\n}\n", false, State{Detail: "not loaded"}},
		{"", "disabled services = {\n\t\"com.teammemd.daemon\" => enabled\n\t\"com.other\" => disabled\n}\n", false,
			State{Enabled: true, Detail: "not loaded"}},
	}
	for _, tt := range tests {
		rec := &recorder{answers: map[string]string{print: tt.print, disabled: tt.disabled}, fail: map[string]bool{print: !tt.loaded}}
		if got := (Launchd{}).State(context.Background(), rec, Spec{UID: 501}); got != tt.want {
			t.Errorf("State(print %q, print-disabled %q) = %+v, want %+v", tt.print, tt.disabled, got, tt.want)
		}
	}
}

// Status says installed only with the unit file in place; a unit that is
// not installed is neither enabled nor running as this service, whatever
// the manager answers for its name.
func TestStatus(t *testing.T) {
	dir, _ := home(t)
	rec := &recorder{answers: map[string]string{
		"systemctl --user is-enabled teammemd.service": "enabled\n",
		"systemctl --user is-active teammemd.service":  "active\n",
	}}
	env := testEnv(dir, Systemd{}, rec, "")
	unit := filepath.Join(dir, ".config", "systemd", "user", "teammemd.service")
	r, err := Status(context.Background(), env)
	if err != nil || r.Installed || r.Runs() || r.State.Enabled || r.Unit != unit {
		t.Errorf("Status() with no unit = %+v, %v; want %s not installed, not enabled, not running", r, err, unit)
	}
	var out bytes.Buffer
	r.Print(&out)
	if want := "service:   systemd user unit " + unit + "\ninstalled: no\nenabled:   no\nrunning:   no (not installed)\n\n"; out.String() != want {
		t.Errorf("Print() =\n%s\nwant\n%s", out.String(), want)
	}
	if err := os.MkdirAll(filepath.Dir(unit), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(unit, []byte("[Unit]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = Status(context.Background(), env)
	out.Reset()
	r.Print(&out)
	if want := "service:   systemd user unit " + unit + "\ninstalled: yes\nenabled:   yes\nrunning:   yes (active)\n\n"; err != nil || !r.Runs() || out.String() != want {
		t.Errorf("Status() with the unit = %+v, %v, printed\n%s\nwant\n%s", r, err, out.String(), want)
	}
}
