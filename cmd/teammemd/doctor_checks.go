package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/teammemd/teammemd/checkup"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/sync/credential"
)

func (d *doctor) checkConfig(context.Context) {
	path := cmp.Or(d.config, os.Getenv("TEAMMEMD_CONFIG"), filepath.Join(configDir(), "config.toml"))
	cfg, err := loadConfig(d.config)
	switch _, serr := os.Stat(path); {
	case err != nil:
		cfg = Config{}
		d.badConfig = true
		d.report(checkFail, "config", err.Error(), "correct the file as the message says; configs/daemon.toml shows every key a teammate's machine reads, configs/server.toml the [server] keys")
	case serr != nil:
		d.report(checkOK, "config", "none at "+path+"; flags and environment only", "")
	default:
		d.report(checkOK, "config", path, "")
	}
	d.cfg = cfg
	d.client = d.flags.resolve(cfg.Client)
	d.client.AllowInsecure = cfg.Client.AllowInsecure
	d.rule = newTokenRule(d.flags, cfg.Client)
}

func (d *doctor) checkServer(context.Context) {
	if d.skipForConfig("server") {
		return
	}
	if d.client.Server == "" {
		d.report(checkFail, "server", "none set", "pass --server URL, set "+envServer+", or set [client] server in the config")
		return
	}
	if err := d.client.CheckServer(d.client.Server); err != nil {
		d.client.Server = ""
		d.report(checkFail, "server", err.Error(), "use the server's https:// URL, or set allow_insecure = true in [client] on a network you trust")
		return
	}
	d.report(checkOK, "server", d.client.Server, "")
}

func (d *doctor) checkToken(context.Context) {
	if d.skipForConfig("token") {
		return
	}
	file := d.client.TokenFile
	cred := d.rule.For(d.client.Server, file)
	tok, err := cred.Bearer()
	switch {
	case err != nil:
		d.report(checkFail, "token", err.Error(), tokenFix(err, cred))
		return
	case cred.Kind == credential.Login:
		d.token = tok
		d.report(checkOK, "token", "the login to "+d.client.Server+" (teammemd login"+loginKept(d.client.Server)+")", "")
		return
	case cred.Kind == credential.Env:
		d.token = tok
		d.report(checkOK, "token", "from $"+envToken+" (not shown)", "")
		return
	}
	if info, err := os.Stat(file); err == nil && info.Mode().Perm()&0o077 != 0 {
		d.report(checkFail, "token", fmt.Sprintf("%s is readable by other users (mode %04o)", file, info.Mode().Perm()), "chmod 600 "+file)
		return
	}
	d.token = tok
	d.report(checkOK, "token", "from "+file+" (not shown)", "")
}

// tokenFix is the token check's fix for err, the error of cred: a token
// that is not one word needs only its extra words gone.
func tokenFix(err error, cred credential.Choice) string {
	switch {
	case errors.Is(err, credential.ErrMalformed) && cred.Kind == credential.Env:
		return "set " + envToken + " to the token alone, as teammemd token create printed it"
	case errors.Is(err, credential.ErrMalformed) && (cred.Kind == credential.ExplicitFile || cred.Kind == credential.GeneralFile):
		return "keep only the token in " + cred.File + ", alone on one line, as teammemd token create printed it"
	}
	return "run teammemd login --server URL, or put the token in a file of mode 0600 " +
		"and name it with --token-file or [client] token_file, or set " + envToken
}

func (d *doctor) checkReachable(ctx context.Context) {
	if d.client.Server == "" {
		d.report(checkSkip, "reachable", "needs a server", "")
		return
	}
	r, date := d.prober.Reachable(ctx, d.client.Server)
	d.reached, d.date = r.Outcome == checkOK, date
	d.result("reachable", r)
}

func (d *doctor) checkIdentity(ctx context.Context) {
	if !d.reached {
		d.report(checkSkip, "teammemd", "needs a server that answers", "")
		return
	}
	r := d.prober.Identity(ctx, d.client.Server)
	d.identity = r.Outcome == checkOK
	d.result("teammemd", r)
}

func (d *doctor) checkAuth(ctx context.Context) {
	if !d.identity || d.token == "" {
		d.report(checkSkip, "auth", "needs a teammemd server and a token", "")
		return
	}
	from := tokenFrom(d.rule.For(d.client.Server, d.client.TokenFile), d.client.Server)
	from.GitHub = auth.FormOf(d.token) == auth.ModeGitHub
	d.result("auth", d.prober.Auth(ctx, d.client.Server, d.token, from))
}

// tokenFrom says where a credential for server came from: the
// environment, a teammemd login or a token file.
func tokenFrom(c credential.Choice, server string) checkup.TokenFrom {
	switch c.Kind {
	case credential.Env:
		return checkup.TokenFrom{Env: credential.EnvToken}
	case credential.Login:
		return checkup.TokenFrom{Login: server}
	}
	return checkup.TokenFrom{}
}
