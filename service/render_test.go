package service

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shipped unit and plist are what install writes, for the binary and
// home they show, below a header of their own.
func TestShippedUnitsMatchInstall(t *testing.T) {
	unit, err := os.ReadFile("../systemd/teammemd.service")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(unit), "\n[Unit]\n")
	want := strings.TrimPrefix(strings.Replace(systemdUnitBody, "%s", "%h/.local/bin/teammemd run --log-format json", 1), "[Unit]\n")
	if body != want {
		t.Errorf("systemd/teammemd.service differs from the unit install writes:\n%s\nwant:\n%s", body, want)
	}
	plist, err := os.ReadFile("../systemd/com.teammemd.daemon.plist")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ = strings.Cut(string(plist), "-->\n")
	want = launchdBody("/Users/you/Library/Logs/teammemd.log", "/usr/local/bin/teammemd", "run", "--log-format", "json")
	if !strings.HasPrefix(string(plist), launchdPrologue) || body != want {
		t.Errorf("systemd/com.teammemd.daemon.plist differs from the agent install writes:\n%s\nwant:\n%s", body, want)
	}
}

func TestSystemdCommandLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"/usr/bin/teammemd", "run"}, "/usr/bin/teammemd run"},
		{[]string{"/home/a b/teammemd", "--config", "/home/a b/c.toml"}, `"/home/a b/teammemd" --config "/home/a b/c.toml"`},
		{[]string{"/opt/100%/tm$d", "--config", `/x/"q"\$HOME%h`}, `"/opt/100%%/tm$d" --config "/x/\"q\"\\$$HOME%%h"`},
		{[]string{"/usr/bin/teammemd", "--config", ""}, `/usr/bin/teammemd --config ""`},
		{[]string{"/usr/bin/teammemd", "--config", "it's"}, `/usr/bin/teammemd --config "it's"`},
	}
	for _, tt := range tests {
		if got, err := systemdCommandLine(tt.args...); got != tt.want || err != nil {
			t.Errorf("systemdCommandLine(%q) = %s, %v, want %s", tt.args, got, err, tt.want)
		}
	}
	for _, args := range [][]string{{"/a\nb"}, {`/a"b`}, {`/a\b`}, {"/a'b"}, {"/bin/teammemd", "--config", "/a\rb"}, {"/bin/teammemd", "\x7f"}} {
		line, err := systemdCommandLine(args...)
		if _, ok := err.(InputError); !ok {
			t.Errorf("systemdCommandLine(%q) = %s, %v, want an InputError", args, line, err)
		}
	}
}

// Each manager's plan puts the unit where the manager looks for it, runs
// the binary with the config, and loads and unloads it with the manager's
// own commands.
func TestPlans(t *testing.T) {
	spec := Spec{Home: "/home/you", ConfigHome: "/xdg/config", UID: 501, Binary: "/opt/tm d/teammemd", Config: "/home/you/a--b/config.toml"}
	tests := []struct {
		manager            Manager
		path, reload       string
		probe, first, last string
		has                []string
	}{
		{Systemd{}, "/xdg/config/systemd/user/teammemd.service", "systemctl --user reload teammemd",
			"systemctl --user show-environment", "systemctl --user daemon-reload", "systemctl --user restart teammemd.service",
			[]string{`ExecStart="/opt/tm d/teammemd" run --log-format json --config /home/you/a--b/config.toml` + "\n",
				"# Reload after editing /home/you/a--b/config.toml:\n"}},
		{Launchd{}, "/home/you/Library/LaunchAgents/com.teammemd.daemon.plist", "launchctl kill HUP gui/501/com.teammemd.daemon",
			"launchctl print gui/501", "launchctl bootout gui/501/com.teammemd.daemon",
			"launchctl bootstrap gui/501 /home/you/Library/LaunchAgents/com.teammemd.daemon.plist",
			[]string{"<string>/opt/tm d/teammemd</string>", "<string>/home/you/a--b/config.toml</string>",
				"Reload after editing /home/you/a- -b/config.toml:", "<string>/home/you/Library/Logs/teammemd.log</string>"}},
	}
	for _, tt := range tests {
		p, err := tt.manager.Plan(spec)
		if err != nil {
			t.Fatalf("%T.Plan() = %v", tt.manager, err)
		}
		if p.Unit.Path != tt.path || p.Unit.Mode != 0o644 || p.Unit.Secret || p.Reload != tt.reload {
			t.Errorf("%T.Plan() unit %s mode %04o, reload %q; want %s 0644, %q", tt.manager, p.Unit.Path, p.Unit.Mode, p.Reload, tt.path, tt.reload)
		}
		install := argvs(p.Install)
		if got := strings.Join(p.Probe, " "); got != tt.probe {
			t.Errorf("%T.Plan() probe = %q, want %q", tt.manager, got, tt.probe)
		}
		if first, last := strings.Join(install[0], " "), strings.Join(install[len(install)-1], " "); first != tt.first || last != tt.last {
			t.Errorf("%T.Plan() install runs %q ... %q, want %q ... %q", tt.manager, first, last, tt.first, tt.last)
		}
		for _, want := range tt.has {
			if !strings.Contains(string(p.Unit.Data), want) {
				t.Errorf("%T.Plan() unit lacks %q:\n%s", tt.manager, want, p.Unit.Data)
			}
		}
	}
}

// The plist is well-formed XML whatever the paths hold, and its comment
// survives a config path with "--" in it.
func TestLaunchdPlistEscapes(t *testing.T) {
	spec := Spec{Home: "/Users/a&b", UID: 501, Binary: "/opt/<tm>/teammemd", Config: "/Users/a&b/x--y/config.toml"}
	p, err := Launchd{}.Plan(spec)
	if err != nil {
		t.Fatal(err)
	}
	var plist struct {
		Dict struct {
			Strings []string `xml:"string"`
			Array   struct {
				Args []string `xml:"string"`
			} `xml:"array"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(p.Unit.Data, &plist); err != nil {
		t.Fatalf("the plist is not XML: %v\n%s", err, p.Unit.Data)
	}
	want := []string{spec.Binary, "run", "--log-format", "json", "--config", spec.Config}
	if got := plist.Dict.Array.Args; strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("ProgramArguments = %q, want %q", got, want)
	}
	if log := filepath.Join(spec.Home, "Library", "Logs", "teammemd.log"); !strings.Contains(strings.Join(plist.Dict.Strings, "\n"), log) {
		t.Errorf("strings %q lack the log file %s", plist.Dict.Strings, log)
	}
}
