package main

import (
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/spf13/pflag"

	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/credential"
	"github.com/teammemd/teammemd/sync/daemon"
)

// Where "teammemd sync" and "teammemd run" find their server, token and
// state: each setting is the flag, else the environment variable, else the
// config's [client] key, else the default. Package credential owns how the
// token is picked.
const (
	envServer    = "TEAMMEMD_SERVER"
	envToken     = credential.EnvToken
	envTokenFile = credential.EnvTokenFile
	envStateDir  = "TEAMMEMD_STATE_DIR"
)

// clientFlags are the flags sync and run share.
type clientFlags struct {
	server, tokenFile, stateDir string
}

// register adds --server, --token-file and --state-dir to fs.
func (c *clientFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.server, "server", "", "server `URL` (default $"+envServer+", then [client] server)")
	fs.Func("token-file", "`file` holding the API token (default $"+envToken+
		" itself, then a file named by $"+envTokenFile+", then [client] token_file)", func(v string) error {
		c.tokenFile = absPath(v)
		return nil
	})
	c.registerStateDir(fs)
}

// registerStateDir adds --state-dir to fs.
func (c *clientFlags) registerStateDir(fs *pflag.FlagSet) {
	fs.StringVar(&c.stateDir, "state-dir", "", "state `directory` (default $"+envStateDir+
		", then [client] state_dir, then "+stateDir()+")")
}

// resolve applies flags > environment > config > defaults. The server and
// token file stay empty when nothing sets them.
func (c clientFlags) resolve(file memsync.ClientConfig) memsync.ClientConfig {
	return memsync.ClientConfig{
		Server:    cmp.Or(c.server, os.Getenv(envServer), file.Server),
		TokenFile: cmp.Or(c.tokenFile, absPath(os.Getenv(envTokenFile)), file.TokenFile),
		StateDir:  cmp.Or(c.stateDir, os.Getenv(envStateDir), file.StateDir, stateDir()),
	}
}

// absPath is p made absolute against the working directory, so that the
// daemon's messages and a status read elsewhere name the file itself; ""
// stays "", and p stays as it is when the working directory is unknown.
func absPath(p string) string {
	if p == "" {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// errNoServer says every way to name the server.
var errNoServer = usageError{errors.New("no server: pass --server, set " + envServer + ", or set [client] server in the config")}

// newTokenRule is the credential rule of a command with flags c and the
// config's [client] section: --token-file and a repo's own token file win
// over $TEAMMEMD_TOKEN, which wins over a login, which wins over
// $TEAMMEMD_TOKEN_FILE and [client] token_file.
func newTokenRule(c clientFlags, file memsync.ClientConfig) credential.Rule {
	return credential.Rule{
		FlagFile:    c.tokenFile,
		GeneralFile: cmp.Or(absPath(os.Getenv(envTokenFile)), file.TokenFile),
		EnvToken:    os.Getenv(envToken),
		Logins:      loginStore(""),
		HTTP:        loginHTTPClient(),
		Now:         loginClock,
	}
}

// tokenRules holds the credential rule of the config in force, replaced
// on every reload, for repos opened after it.
type tokenRules struct {
	cur atomic.Pointer[credential.Rule]
}

func (t *tokenRules) set(r credential.Rule) { t.cur.Store(&r) }

// For is the credential of a repo on server with token file file.
func (t *tokenRules) For(server, file string) credential.Choice {
	return t.cur.Load().For(server, file)
}

// skipInsecure moves the repos whose server would get the token over plain
// http:// beyond loopback from the plan's repos to its skipped ones, with
// the reason.
func skipInsecure(plan daemon.Plan, c memsync.ClientConfig) daemon.Plan {
	var keep []daemon.Spec
	for _, s := range plan.Specs {
		if err := c.CheckServer(s.Server); err != nil {
			plan.Skipped = append(plan.Skipped, daemon.Skipped{Source: s.Source, Reason: err.Error()})
			continue
		}
		keep = append(keep, s)
	}
	plan.Specs = keep
	return plan
}
