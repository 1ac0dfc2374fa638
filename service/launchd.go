package service

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Launchd runs the daemon as a launchd agent in the user's GUI domain.
type Launchd struct{}

const launchdLabel = "com.teammemd.daemon"

// launchdPlist is the agent's property list from <plist> on, given the
// program arguments and the log file; systemd/com.teammemd.daemon.plist is
// this, for /usr/local/bin/teammemd and a home of /Users/you.
const launchdPlist = `<plist version="1.0">
<dict>
  <key>Label</key>
  <string>com.teammemd.daemon</string>
  <key>ProgramArguments</key>
  <array>
%s  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ThrottleInterval</key>
  <integer>30</integer>
  <key>ProcessType</key>
  <string>Background</string>
  <key>StandardErrorPath</key>
  <string>%s</string>
</dict>
</plist>
`

const launchdPrologue = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
`

// launchdBody renders the plist from <plist> on for the program args.
func launchdBody(logFile string, args ...string) string {
	var b strings.Builder
	for _, a := range args {
		fmt.Fprintf(&b, "    <string>%s</string>\n", xmlText(a))
	}
	return fmt.Sprintf(launchdPlist, b.String(), xmlText(logFile))
}

func xmlText(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // a bytes.Buffer does not fail
	return b.String()
}

// Plan writes the unit for s and the commands that load and unload it.
func (Launchd) Plan(s Spec) (Plan, error) {
	path := launchdPlistPath(s.Home)
	logFile := filepath.Join(s.Home, "Library", "Logs", "teammemd.log")
	domain := fmt.Sprintf("gui/%d", s.UID)
	target := domain + "/" + launchdLabel
	header := fmt.Sprintf(`<!--
  teammemd sync daemon as a launchd agent, written by teammemd service install.
  teammemd service status shows how it does; teammemd service uninstall
  removes it and keeps the config, the token file and the synced data.
  Reload after editing %s:
    launchctl kill HUP %s
  Log: %s
-->
`, xmlComment(s.Config), target, xmlComment(logFile))
	body := launchdBody(logFile, s.Binary, "run", "--log-format", "json", "--config", s.Config)
	ctl := func(mayFail bool, args ...string) Cmd {
		return Cmd{Argv: append([]string{"launchctl"}, args...), MayFail: mayFail}
	}
	return Plan{
		Name:   "launchd agent",
		Unit:   FileWrite{Path: path, Data: []byte(launchdPrologue + header + body), Mode: 0o644},
		Reload: "launchctl kill HUP " + target,
		Probe:  []string{"launchctl", "print", domain},
		NoManager: "launchd runs a user's agents only in the user's desktop session: log in to the Mac's desktop, " +
			"then run this again there",
		// bootout of an agent that is not loaded fails: that is fine.
		Install:   []Cmd{ctl(true, "bootout", target), ctl(false, "enable", target), ctl(false, "bootstrap", domain, path)},
		Uninstall: []Cmd{ctl(true, "bootout", target)},
	}, nil
}

// launchdPlistPath is where launchd loads the user's agents from.
func launchdPlistPath(home string) string {
	return filepath.Join(home, "Library", "LaunchAgents", launchdLabel+".plist")
}

// xmlComment keeps s from ending an XML comment.
func xmlComment(s string) string { return strings.ReplaceAll(s, "--", "- -") }

var (
	launchdRunning  = regexp.MustCompile(`(?m)^\s*state = running\s*$`)
	launchdDisabled = regexp.MustCompile(`"` + regexp.QuoteMeta(launchdLabel) + `"\s*=>\s*(disabled|true)`)
)

// State asks the manager whether the service is enabled and running.
func (Launchd) State(ctx context.Context, run Runner, s Spec) State {
	domain := fmt.Sprintf("gui/%d", s.UID)
	out, err := run.Run(ctx, []string{"launchctl", "print", domain + "/" + launchdLabel})
	st := State{Detail: "not loaded"}
	if err == nil {
		st.Detail = "loaded"
		st.Running = launchdRunning.MatchString(out)
		if st.Running {
			st.Detail = "running"
		}
	}
	disabled, err := run.Run(ctx, []string{"launchctl", "print-disabled", domain})
	st.Enabled = err == nil && !launchdDisabled.MatchString(disabled)
	return st
}
