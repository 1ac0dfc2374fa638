package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"github.com/spf13/pflag"
	"golang.org/x/oauth2"

	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/login"
)

// Where "teammemd sync" and "teammemd run" find their server, token and
// state: each setting is the flag, else the environment variable, else the
// config's [client] key, else the default. For the token, a file given with
// --token-file or named for one repo in the config wins over $TEAMMEMD_TOKEN,
// the token itself, which wins over a "teammemd login" to the repo's server,
// which wins over $TEAMMEMD_TOKEN_FILE and [client] token_file.
const (
	envServer    = "TEAMMEMD_SERVER"
	envToken     = "TEAMMEMD_TOKEN"
	envTokenFile = "TEAMMEMD_TOKEN_FILE"
	envStateDir  = "TEAMMEMD_STATE_DIR"
)

// errNoToken says every way to give teammemd its API token.
var errNoToken = errors.New("no API token: run teammemd login, set " + envToken + ", or name a file holding it with --token-file, " +
	envTokenFile + " or [client] token_file")

// clientFlags are the flags sync and run share.
type clientFlags struct {
	server, tokenFile, stateDir string
}

// register adds --server, --token-file and --state-dir to fs.
func (c *clientFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.server, "server", "", "server `URL` (default $"+envServer+", then [client] server)")
	fs.StringVar(&c.tokenFile, "token-file", "", "`file` holding the API token (default $"+envToken+
		" itself, then a file named by $"+envTokenFile+", then [client] token_file)")
	fs.StringVar(&c.stateDir, "state-dir", "", "state `directory` (default $"+envStateDir+
		", then [client] state_dir, then "+stateDir()+")")
}

// resolve applies flags > environment > config > defaults. The server and
// token file stay empty when nothing sets them.
func (c clientFlags) resolve(file memsync.ClientConfig) memsync.ClientConfig {
	return memsync.ClientConfig{
		Server:    cmp.Or(c.server, os.Getenv(envServer), file.Server),
		TokenFile: cmp.Or(c.tokenFile, os.Getenv(envTokenFile), file.TokenFile),
		StateDir:  cmp.Or(c.stateDir, os.Getenv(envStateDir), file.StateDir, stateDir()),
	}
}

// errNoServer says every way to name the server.
var errNoServer = usageError{errors.New("no server: pass --server, set " + envServer + ", or set [client] server in the config")}

// tokenRule tells which token files are explicit: given with --token-file,
// or named for one repo in the config. Those win over $TEAMMEMD_TOKEN; the
// general one ($TEAMMEMD_TOKEN_FILE, [client] token_file) does not.
type tokenRule struct{ flagFile, generalFile string }

func newTokenRule(c clientFlags, file memsync.ClientConfig) tokenRule {
	return tokenRule{flagFile: c.tokenFile, generalFile: cmp.Or(os.Getenv(envTokenFile), file.TokenFile)}
}

func (r tokenRule) explicit(file string) bool {
	return file != "" && (file == r.flagFile || file != r.generalFile)
}

// tokenRules holds the tokenRule of the config in force, replaced on every
// reload, for repos opened after it.
type tokenRules struct{ cur atomic.Pointer[tokenRule] }

func (t *tokenRules) set(r tokenRule) { t.cur.Store(&r) }

func (t *tokenRules) explicit(file string) bool { return t.cur.Load().explicit(file) }

// tokenSource gives a repo on server its credential: an explicit token
// file, else $TEAMMEMD_TOKEN, else the "teammemd login" to server, which it
// refreshes and re-reads when it changes, else the general token file.
func tokenSource(server, file string, explicit bool) (oauth2.TokenSource, error) {
	if usesLogin(server, file, explicit) {
		return login.NewSource(loginStore(""), server, loginHTTPClient(), loginClock)
	}
	tok, err := readToken(file, explicit)
	if err != nil {
		return nil, err
	}
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok, TokenType: "Bearer"}), nil
}

// usesLogin reports whether a repo on server authenticates with the login
// to it: nothing that wins over a login is set, and there is one.
func usesLogin(server, file string, explicit bool) bool {
	if server == "" || (explicit && file != "") || os.Getenv(envToken) != "" {
		return false
	}
	path, err := loginPath(server)
	if err != nil {
		return false
	}
	_, err = os.Stat(path)
	return err == nil
}

// readToken returns the explicit token file's content, else
// $TEAMMEMD_TOKEN, else the token file's content.
func readToken(file string, explicit bool) (string, error) {
	var tok string
	if !explicit {
		tok = os.Getenv(envToken)
	}
	if tok == "" && file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("read token file: %w", err)
		}
		tok = strings.TrimSpace(string(data))
	}
	if tok == "" {
		return "", errNoToken
	}
	return tok, nil
}

// tokenID is a short digest of the token a repo uses, never the token
// itself; for a login, of the login file, which stays the same across
// refreshes. It is "" when there is none (opening the repo reports why).
func tokenID(server, file string, explicit bool) string {
	tok, err := readToken(file, explicit)
	if usesLogin(server, file, explicit) {
		tok, err = loginPath(server)
		tok = "login " + tok
	}
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:8])
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
