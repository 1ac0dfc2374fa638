// Package credential picks the API token a repo's client sends to its
// server. It is the one rule "teammemd sync", the daemon's plan and its
// repos, the MCP server, doctor and service install share: a token file
// given with --token-file or named for one repo in the config wins over
// $TEAMMEMD_TOKEN, the token itself, which wins over a "teammemd login" to
// the repo's server, which wins over the general token file
// ($TEAMMEMD_TOKEN_FILE, [client] token_file).
package credential

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
	"unicode"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/sync/login"
)

// The environment variables of the rule.
const (
	EnvToken     = "TEAMMEMD_TOKEN"
	EnvTokenFile = "TEAMMEMD_TOKEN_FILE"
)

// ErrNoToken says every way to give teammemd its API token.
var ErrNoToken = errors.New("no API token: run teammemd login, set " + EnvToken + ", or name a file holding it with --token-file, " +
	EnvTokenFile + " or [client] token_file")

// ErrMalformed is a token that is not one word, such as a token file
// with a comment on a second line: no server accepts it, and an HTTP
// client cannot even send it.
var ErrMalformed = errors.New("the API token must be one word, as teammemd token create prints it")

// Check refuses a token with a space, a line break or another control
// character in it: the one check setup and every reader of a token share.
func Check(tok string) error {
	if strings.ContainsFunc(tok, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return ErrMalformed
	}
	return nil
}

// ReadFile returns the token a token file holds, without the space or
// newline around it. A file that gives no token is a *FileError: one that
// cannot be read, one holding nothing (ErrNoToken) and one holding more
// than one word (ErrMalformed), each naming the file.
func ReadFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", &FileError{File: path, Err: fmt.Errorf("read token file: %w", err)}
	}
	tok := strings.TrimSpace(string(data))
	switch err := Check(tok); {
	case tok == "":
		return "", &FileError{File: path, sum: sha256.Sum256(data), Err: fmt.Errorf("token file %s is empty: %w", path, ErrNoToken)}
	case err != nil:
		return "", &FileError{File: path, sum: sha256.Sum256(data), Err: fmt.Errorf("token file %s: %w", path, err)}
	}
	return tok, nil
}

// FileError is a token file that gives no token: missing or unreadable,
// empty, or holding more than one word. A new content of File may fix it;
// Changed tells when there is one.
type FileError struct {
	File string
	Err  error
	// sum is the SHA-256 of the content read, zero when none could be:
	// a digest keeps no token in memory.
	sum [sha256.Size]byte
}

func (e *FileError) Error() string { return e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Changed reports whether the file's content is no longer the one that
// gave the error: it was written, created or removed since. Comparing
// with the content read, not with the file as it is when the error is
// handled, misses no write that lands in between.
func (e *FileError) Changed() bool {
	data, err := os.ReadFile(e.File)
	if err != nil {
		return e.sum != [sha256.Size]byte{}
	}
	return sha256.Sum256(data) != e.sum
}

// Rule is what decides the credential of every repo of one command or
// config: the token files, $TEAMMEMD_TOKEN and the logins.
type Rule struct {
	FlagFile    string // --token-file
	GeneralFile string // $TEAMMEMD_TOKEN_FILE, else [client] token_file
	EnvToken    string // $TEAMMEMD_TOKEN
	Logins      login.Store
	// HTTP refreshes a login; Now is the clock its expiry is judged by.
	HTTP *http.Client
	Now  func() time.Time
}

// Explicit reports whether the token file is explicit: given with
// --token-file, or named for one repo in the config. Those win over
// $TEAMMEMD_TOKEN; the general one does not.
func (r Rule) Explicit(file string) bool {
	return file != "" && (file == r.FlagFile || file != r.GeneralFile)
}

// Kind is where a repo's token comes from.
type Kind int

// The kinds, in the order the rule prefers them.
const (
	None         Kind = iota // nothing gives a token
	ExplicitFile             // a token file given with --token-file or named for the repo
	Env                      // $TEAMMEMD_TOKEN
	Login                    // the teammemd login to the repo's server
	GeneralFile              // $TEAMMEMD_TOKEN_FILE or [client] token_file
)

// Choice is the credential of one repo.
type Choice struct {
	Kind   Kind
	Server string
	// File is the token file (ExplicitFile, GeneralFile) or the login
	// file (Login): the file whose change may fix a token the server
	// rejected. It is "" when the token is $TEAMMEMD_TOKEN itself, or
	// there is none.
	File string
	rule Rule
}

// For picks the credential of a repo on server whose token file is file
// (the repo's own, else the general one; empty when there is none).
func (r Rule) For(server, file string) Choice {
	c := Choice{Server: server, File: file, rule: r}
	path, loggedIn := r.login(server)
	switch {
	case r.Explicit(file):
		c.Kind = ExplicitFile
	case r.EnvToken != "":
		c.Kind, c.File = Env, ""
	case loggedIn:
		c.Kind, c.File = Login, path
	case file != "":
		c.Kind = GeneralFile
	}
	return c
}

// login is the login file of server, and whether teammemd login keeps one.
func (r Rule) login(server string) (string, bool) {
	if server == "" {
		return "", false
	}
	path, err := r.Logins.Path(server)
	if err != nil {
		return "", false
	}
	_, err = os.Stat(path)
	return path, err == nil
}

// Static returns the token itself, for every kind but Login: the token
// file's content or $TEAMMEMD_TOKEN.
func (c Choice) Static() (string, error) {
	switch c.Kind {
	case None:
		return "", ErrNoToken
	case Env:
		tok := strings.TrimSpace(c.rule.EnvToken)
		switch err := Check(tok); {
		case tok == "":
			return "", ErrNoToken
		case err != nil:
			return "", fmt.Errorf("$%s: %w", EnvToken, err)
		}
		return tok, nil
	case Login:
		return "", fmt.Errorf("the login to %s is not a static token", c.Server)
	}
	return ReadFile(c.File)
}

// Source is the token source of the choice: a login is refreshed, and
// read again when its file changes.
func (c Choice) Source() (oauth2.TokenSource, error) {
	if c.Kind == Login {
		return login.NewSource(c.rule.Logins, c.Server, c.rule.HTTP, c.rule.Now)
	}
	tok, err := c.Static()
	if err != nil {
		return nil, err
	}
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok, TokenType: "Bearer"}), nil
}

// Bearer is the token the choice sends now, a login refreshed if it needs
// to be.
func (c Choice) Bearer() (string, error) {
	ts, err := c.Source()
	if err != nil {
		return "", err
	}
	tok, err := ts.Token()
	if err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return tok.AccessToken, nil
}

// ID is a short digest of the token, never the token itself; for a login,
// of the login file, which stays the same across refreshes. It is "" when
// there is no token (opening the repo reports why).
func (c Choice) ID() string {
	tok, err := c.Static()
	if c.Kind == Login {
		tok, err = "login "+c.File, nil
	}
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:8])
}
