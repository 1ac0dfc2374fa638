package service

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Systemd runs the daemon as a systemd user unit.
type Systemd struct{}

const systemdUnitName = "teammemd.service"

// systemdUnitBody is the user unit from [Unit] on; systemd/teammemd.service
// is this body, for a binary in ~/.local/bin and the default config, below
// a header that says how to install it by hand.
const systemdUnitBody = `[Unit]
Description=teammemd: keep team memory of AI coding agents in sync
Documentation=https://github.com/teammemd/teammemd/blob/main/docs/02-daemon.md#as-a-service-teammemd-service
After=network-online.target
Wants=network-online.target
StartLimitIntervalSec=300
StartLimitBurst=5

[Service]
Type=notify
NotifyAccess=main
# The config names the server, the token file and the repos; variables
# left in the user manager's environment must not override it.
UnsetEnvironment=TEAMMEMD_CONFIG TEAMMEMD_SERVER TEAMMEMD_TOKEN TEAMMEMD_TOKEN_FILE TEAMMEMD_STATE_DIR
ExecStart=%s
ExecReload=/bin/kill -HUP $MAINPID
Restart=on-failure
RestartSec=5s
RestartPreventExitStatus=78
TimeoutStopSec=15s
# Team directories may live anywhere in the user's home (explicit dir = ...
# repos), so the file system is not narrowed here.
NoNewPrivileges=yes
MemoryHigh=128M

[Install]
WantedBy=default.target
`

// Plan writes the unit for s and the commands that load and unload it.
func (Systemd) Plan(s Spec) (Plan, error) {
	execStart, err := systemdCommandLine(s.Binary, "run", "--log-format", "json", "--config", s.Config)
	if err != nil {
		return Plan{}, err
	}
	header := fmt.Sprintf(`# teammemd sync daemon, written by teammemd service install.
# teammemd service status shows how it does; teammemd service uninstall
# removes it and keeps the config, the token file and the synced data.
# Reload after editing %s:
#   systemctl --user reload teammemd
# Logs: journalctl --user -u teammemd -f
`, s.Config)
	ctl := func(mayFail bool, args ...string) Cmd {
		return Cmd{Argv: append([]string{"systemctl", "--user"}, args...), MayFail: mayFail}
	}
	return Plan{
		Name:   "systemd user unit",
		Unit:   FileWrite{Path: systemdUnitPath(s.ConfigHome), Data: []byte(header + fmt.Sprintf(systemdUnitBody, execStart)), Mode: 0o644},
		Reload: "systemctl --user reload teammemd",
		Probe:  []string{"systemctl", "--user", "show-environment"},
		NoManager: "The user's systemd runs only in a login session: log in on the machine itself, " +
			"or have root keep one for you (loginctl enable-linger " + userName() + ") and log in again",
		Install:        []Cmd{ctl(false, "daemon-reload"), ctl(false, "enable", systemdUnitName), ctl(false, "restart", systemdUnitName)},
		Uninstall:      []Cmd{ctl(false, "disable", "--now", systemdUnitName)},
		AfterUninstall: []Cmd{ctl(false, "daemon-reload")},
	}, nil
}

// systemdUnitPath is where the user's systemd looks for the unit.
func systemdUnitPath(configHome string) string {
	return filepath.Join(configHome, "systemd", "user", systemdUnitName)
}

// State asks the manager whether the service is enabled and running.
func (Systemd) State(ctx context.Context, run Runner, _ Spec) State {
	// Both commands exit non-zero for "disabled" or "inactive": their
	// output is the answer.
	enabled, _ := run.Run(ctx, []string{"systemctl", "--user", "is-enabled", systemdUnitName})
	active, _ := run.Run(ctx, []string{"systemctl", "--user", "is-active", systemdUnitName})
	active = strings.TrimSpace(active)
	return State{
		Enabled: strings.TrimSpace(enabled) == "enabled",
		Running: active == "active" || active == "reloading",
		Detail:  active,
	}
}

// systemdCommandLine quotes args for ExecStart=: each word in double
// quotes when it needs them, "%" doubled (a specifier otherwise), and in
// the arguments "$" doubled, backslash and quote escaped. systemd takes no
// quote or backslash in the executable's path, and no control character
// anywhere.
func systemdCommandLine(args ...string) (string, error) {
	words := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsFunc(a, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return "", InputError{fmt.Errorf("%q has a control character, which a systemd unit cannot hold", a)}
		}
		esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "$", "$$")
		if i == 0 {
			if strings.ContainsAny(a, `"'\`) {
				return "", InputError{fmt.Errorf("systemd cannot run a binary whose path holds a quote or a backslash: %s (pass --binary with another path)", a)}
			}
			esc = strings.NewReplacer("%", "%%")
		}
		w := esc.Replace(a)
		if w != a || a == "" || strings.ContainsAny(a, " '") {
			w = `"` + w + `"`
		}
		words[i] = w
	}
	return strings.Join(words, " "), nil
}
