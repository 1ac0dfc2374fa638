package service

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/login"
)

// Install writes the config, a 0600 token file and the unit into the home
// directory and runs the manager's commands; again, it changes nothing;
// Uninstall removes the unit only, and a second time does nothing.
func TestInstallRoundTrip(t *testing.T) {
	for name, m := range map[string]Manager{"systemd": Systemd{}, "launchd": Launchd{}} {
		t.Run(name, func(t *testing.T) {
			dir, bin := home(t)
			repo := checkout(t)
			env := testEnv(dir, m, &recorder{}, "tmd_secret_token\n")
			spec := Spec{Home: dir, ConfigHome: env.Dirs.ConfigHome, UID: 501, Binary: bin, Config: env.ConfigFile}
			plan, err := m.Plan(spec)
			if err != nil {
				t.Fatal(err)
			}
			state := filepath.Join(env.Dirs.State, "repos", "kept")
			if err := os.MkdirAll(state, 0o700); err != nil {
				t.Fatal(err)
			}
			o := Options{Server: "https://teammemd.example.com", TokenStdin: true, Checkouts: []string{repo}, Binary: bin}
			rec := env.Runner.(*recorder)
			if stdout, stderr, err := install(t, env, o); err != nil {
				t.Fatalf("Install() = %v\n%s%s", err, stdout, stderr)
			}
			if want := append([][]string{plan.Probe}, argvs(plan.Install)...); !slices.EqualFunc(rec.calls, want, slices.Equal) {
				t.Errorf("Install ran %q, want %q", rec.calls, want)
			}
			tokenFile := filepath.Join(env.Dirs.Config, "token")
			checkInstalled(t, spec, plan, tokenFile)

			before := readAll(t, spec.Config, plan.Unit.Path, tokenFile)
			for _, again := range []Options{o, {Binary: bin}} {
				env.Machine.Runner, env.Machine.Stdin = &recorder{}, strings.NewReader("tmd_secret_token\n")
				stdout, stderr, err := install(t, env, again)
				if err != nil || strings.Contains(stdout, "wrote ") {
					t.Errorf("Install(%+v) again = %v, want nothing written\n%s%s", again, err, stdout, stderr)
				}
				if after := readAll(t, spec.Config, plan.Unit.Path, tokenFile); !slices.Equal(after, before) {
					t.Errorf("Install(%+v) again changed the files", again)
				}
			}

			for i, want := range [][][]string{argvs(plan.Uninstall, plan.AfterUninstall), nil} {
				rec := &recorder{}
				env.Machine.Runner = rec
				var out bytes.Buffer
				if err := Uninstall(context.Background(), env, false, &out); err != nil {
					t.Fatalf("Uninstall() #%d = %v\n%s", i+1, err, out.String())
				}
				if !slices.EqualFunc(rec.calls, want, slices.Equal) {
					t.Errorf("Uninstall #%d ran %q, want %q", i+1, rec.calls, want)
				}
				if i == 1 && !strings.Contains(out.String(), "not installed") {
					t.Errorf("second Uninstall said %q, want not installed", out.String())
				}
			}
			if _, err := os.Stat(plan.Unit.Path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("unit after Uninstall: %v, want it gone", err)
			}
			for _, kept := range []string{spec.Config, tokenFile, state} {
				if _, err := os.Stat(kept); err != nil {
					t.Errorf("Uninstall removed %s: %v", kept, err)
				}
			}
		})
	}
}

// checkInstalled checks the files install wrote: a config the daemon runs
// the checkout from, the token in a 0600 file and nowhere else, and the
// unit running the binary with that config.
func checkInstalled(t *testing.T, spec Spec, plan Plan, tokenFile string) {
	t.Helper()
	data, err := os.ReadFile(spec.Config)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := decode(spec.Config, data)
	if err != nil {
		t.Fatalf("the config install wrote does not decode: %v", err)
	}
	run := daemon.BuildPlan(cfg.Daemon, daemon.Defaults{Server: cfg.Client.Server, TokenFile: cfg.Client.TokenFile})
	if len(run.Specs) != 1 || run.Specs[0].Server != "https://teammemd.example.com" || run.Specs[0].Repo != "acme/app" {
		t.Errorf("teammemd run would sync %+v (skipped %+v); want acme/app on the server", run.Specs, run.Skipped)
	}
	if cfg.Client.TokenFile != tokenFile {
		t.Errorf("config token_file = %q, want %q", cfg.Client.TokenFile, tokenFile)
	}
	for path, mode := range map[string]os.FileMode{spec.Config: 0o600, tokenFile: 0o600, plan.Unit.Path: 0o644} {
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != mode {
			t.Errorf("%s: %v, want mode %04o", path, err, mode)
		}
	}
	files := readAll(t, spec.Config, plan.Unit.Path, tokenFile)
	if files[2] != "tmd_secret_token\n" {
		t.Errorf("token file holds %q, want the token", files[2])
	}
	if strings.Contains(files[0]+files[1], "tmd_secret_token") {
		t.Error("the token is in the config or the unit")
	}
	if !strings.Contains(files[1], spec.Binary) || !strings.Contains(files[1], spec.Config) {
		t.Errorf("the unit does not run %s with %s:\n%s", spec.Binary, spec.Config, files[1])
	}
}

// A dry run prints every file and command, writes and runs nothing, and
// never shows the token.
func TestInstallDryRun(t *testing.T) {
	dir, bin := home(t)
	rec := &recorder{}
	env := testEnv(dir, Systemd{}, rec, "tmd_secret_token\n")
	stdout, stderr, err := install(t, env, Options{Server: "https://teammemd.example.com", TokenStdin: true,
		Checkouts: []string{checkout(t)}, Binary: bin, DryRun: true})
	if err != nil {
		t.Fatalf("Install(dry run) = %v\n%s", err, stderr)
	}
	if strings.Contains(stdout+stderr, "tmd_secret_token") || !strings.Contains(stdout, "the API token, not shown") {
		t.Errorf("dry run shows the token, or does not say it is left out:\n%s", stdout)
	}
	if len(rec.calls) > 0 {
		t.Errorf("dry run ran %q, want nothing run", rec.calls)
	}
	if _, err := os.Stat(filepath.Join(dir, ".config")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dry run wrote into %s/.config: %v", dir, err)
	}
	for _, want := range []string{"$ systemctl --user daemon-reload\n", "    ExecStart=" + bin, "dry run: nothing was written or run\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, stdout)
		}
	}
}

// A login from teammemd login is the daemon's credential when there is
// one for the server: install then needs no token and writes no token file.
func TestInstallWithLogin(t *testing.T) {
	dir, bin := home(t)
	env := testEnv(dir, Systemd{}, &recorder{}, "")
	rec := login.Record{Server: "https://teammemd.example.com", AccessToken: "x", Expiry: time.Now().Add(time.Hour)}
	if err := env.Logins.Save(rec); err != nil {
		t.Fatal(err)
	}
	o := Options{Server: "https://teammemd.example.com", Checkouts: []string{checkout(t)}, Binary: bin}
	if _, stderr, err := install(t, env, o); err != nil {
		t.Fatalf("Install() with a login = %v\n%s", err, stderr)
	}
	data, _ := os.ReadFile(env.ConfigFile)
	if cfg, err := decode(env.ConfigFile, data); err != nil || cfg.Client.TokenFile != "" {
		t.Errorf("config after Install with a login = %+v, %v; want no token_file", cfg.Client, err)
	}
	o.Server = "https://other.example.com"
	env.ConfigFile = filepath.Join(t.TempDir(), "config.toml")
	if _, _, err := install(t, env, o); !errors.Is(err, errInstallNoToken) {
		t.Errorf("Install() for a server with no login = %v, want %v", err, errInstallNoToken)
	}
}

// Bad input is an InputError naming the flag that fixes it, and leaves
// nothing written or run.
func TestInstallRefuses(t *testing.T) {
	dir, bin := home(t)
	repo := checkout(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("tmd_x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	server := "https://teammemd.example.com"
	goRun := filepath.Join(t.TempDir(), "go-build1234", "b001", "exe", "teammemd")
	if err := os.MkdirAll(filepath.Dir(goRun), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goRun, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		o    Options
		want string
	}{
		{Options{Binary: goRun, Server: server, TokenFile: tokenFile, Checkouts: []string{repo}},
			"is a temporary build, which go run deletes: install teammemd first (go install ./cmd/teammemd) and run this command with the installed one"},
		{Options{Checkouts: []string{repo}, TokenFile: tokenFile}, "pass --server URL"},
		{Options{Server: server, Checkouts: []string{repo}}, "pass --token-file FILE"},
		{Options{Server: server, TokenFile: tokenFile}, "pass --checkout DIR"},
		{Options{Server: server, TokenFile: tokenFile, TokenStdin: true, Checkouts: []string{repo}}, "not both"},
		{Options{Server: "http://teammemd.example.com", TokenFile: tokenFile, Checkouts: []string{repo}}, "--allow-insecure"},
	}
	for _, tt := range tests {
		rec := &recorder{}
		tt.o.Binary = cmp.Or(tt.o.Binary, bin)
		_, _, err := install(t, testEnv(dir, Systemd{}, rec, ""), tt.o)
		var in InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Install(%+v) = %v, want an InputError saying %q", tt.o, err, tt.want)
		}
		if len(rec.calls) > 0 {
			t.Errorf("Install(%+v) ran %q", tt.o, rec.calls)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".config")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused installs wrote into %s/.config", dir)
	}
}

// With no manager answering for the user, install writes the config and
// the token file, so that the daemon runs by hand, but no unit; it says
// what the manager said, what it wrote and how to run the daemon instead.
// Run again, it has nothing left to write and says so.
func TestInstallWithoutAManager(t *testing.T) {
	dir, bin := home(t)
	rec := &recorder{fail: map[string]bool{"launchctl print gui/501": true},
		answers: map[string]string{"launchctl print gui/501": "Could not find domain for\nmore"}}
	env := testEnv(dir, Launchd{}, rec, "tmd_secret_token")
	o := Options{Server: "https://teammemd.example.com", TokenStdin: true, Checkouts: []string{checkout(t)}, Binary: bin}
	_, _, err := install(t, env, o)
	tokenFile := filepath.Join(env.Dirs.Config, "token")
	for _, want := range []string{"no launchd agent answers here: Could not find domain for;",
		"wrote the config " + env.ConfigFile + " and the token file " + tokenFile + ", and no service was installed",
		"desktop session", bin + " run --config " + env.ConfigFile} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Install() with no manager = %v, want an error saying %q", err, want)
		}
	}
	spec := Spec{Home: dir, ConfigHome: env.Dirs.ConfigHome, UID: 501, Binary: bin, Config: env.ConfigFile}
	plan, perr := Launchd{}.Plan(spec)
	if perr != nil {
		t.Fatal(perr)
	}
	if _, err := os.Stat(plan.Unit.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Install with no manager wrote the unit %s: %v", plan.Unit.Path, err)
	}
	if got := readAll(t, env.ConfigFile, tokenFile); !strings.Contains(got[0], "token_file = ") || got[1] != "tmd_secret_token\n" {
		t.Errorf("Install with no manager wrote config %q and token file %q, want both for teammemd run", got[0], got[1])
	}

	env.Machine.Stdin = strings.NewReader("")
	_, _, err = install(t, env, Options{Binary: bin})
	if err == nil || !strings.Contains(err.Error(), "; nothing was written, and no service was installed") {
		t.Errorf("Install() again with no manager = %v, want it to say nothing was written", err)
	}
}
