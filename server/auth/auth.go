// Package auth authenticates callers of the teammemd server and decides what
// they may do: API tokens (random secrets of which only the SHA-256 is
// stored), grants of read or write access on repo slug patterns, and the
// other modes an organisation can turn on: JWTs from its OpenID Connect
// provider, GitHub tokens granted what GitHub grants, and the claude.ai OAuth
// access tokens a stock Claude Code sends. Modes picks the mode by the
// credential's form.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// ErrUnauthenticated is returned for a missing, malformed, unknown or revoked
// credential.
var ErrUnauthenticated = errors.New("unauthenticated")

// TokenPrefix starts every teammemd API token secret, so a leaked token is
// easy to recognise and to scan for.
const TokenPrefix = "tmd_"

// Principal is an authenticated caller.
type Principal struct {
	// Subject names the caller in history, the access log and rate limits:
	// a token's subject, or "oidc:", "github:" or "claude:" and who.
	Subject string
	// Mode is the auth mode that vouched for the caller.
	Mode string
	// TokenID is the ID of the API token presented, in ModeToken.
	TokenID string
	// AccountID is the identity service's id of the account Subject is
	// bound to (store.IdentityBinding): GitHub's user id in ModeGitHub,
	// empty in the other modes.
	AccountID string
	Grants    []store.Grant
	// Identity is what the OIDC provider or claude.ai vouched for, from
	// which the grant rules worked Grants out; nil in the other modes.
	Identity *Identity
}

func (p Principal) clone() Principal {
	p.Grants = slices.Clone(p.Grants)
	if p.Identity != nil {
		id := *p.Identity
		id.Groups = slices.Clone(id.Groups)
		p.Identity = &id
	}
	return p
}

// Allows reports whether p may act on repo at level (review implies write,
// which implies read). No grant reaches a personal lane, which only its own
// subject reaches, through the personal routes.
func (p Principal) Allows(repo string, level store.Level) bool {
	if store.IsPersonalRepo(repo) {
		return false
	}
	for _, g := range p.Grants {
		if !levelCovers(g.Level, level) {
			continue
		}
		if Match(g.Pattern, repo) {
			return true
		}
	}
	return false
}

func levelCovers(have, want store.Level) bool {
	switch want {
	case store.LevelRead:
		return have == store.LevelRead || have == store.LevelWrite || have == store.LevelReview
	case store.LevelWrite:
		return have == store.LevelWrite || have == store.LevelReview
	case store.LevelReview:
		return have == store.LevelReview
	}
	return false
}

// Authenticator turns a bearer credential into a Principal. It returns
// ErrUnauthenticated (or a *RejectError, which matches it) for a bad,
// unknown or revoked credential, and another error only when it could not
// decide (the store failed, or an *UnavailableError).
type Authenticator interface {
	Authenticate(ctx context.Context, bearer string) (Principal, error)
}

// RepoAuthenticator is an Authenticator whose grants can depend on the repo a
// request names, such as GitHub's permission on that repo. repo is the
// request's repo parameter as sent, not yet validated.
type RepoAuthenticator interface {
	AuthenticateRepo(ctx context.Context, bearer, repo string) (Principal, error)
}

var secretEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewToken returns a new random API token secret (TokenPrefix and the
// unpadded base32 of 32 random bytes) and its hash, which is all the server
// stores.
func NewToken() (secret, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("generate token: %w", err)
	}
	secret = TokenPrefix + secretEncoding.EncodeToString(b[:])
	return secret, HashToken(secret), nil
}

// HashToken returns the lowercase hex SHA-256 of a token secret.
func HashToken(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// NewTokenRecord creates a token for subject with grants: it returns the
// secret, to show once, and the record to store, which holds only its hash
// and a random ID. A subject that TokenSubjectProblem refuses is an error.
func NewTokenRecord(subject string, grants []store.Grant, now time.Time) (string, store.Token, error) {
	if err := TokenSubjectProblem(subject); err != nil {
		return "", store.Token{}, fmt.Errorf("token subject: %w", err)
	}
	secret, hash, err := NewToken()
	if err != nil {
		return "", store.Token{}, err
	}
	var id [6]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", store.Token{}, fmt.Errorf("generate token id: %w", err)
	}
	tok := store.Token{
		ID:        hex.EncodeToString(id[:]),
		Subject:   subject,
		Hash:      hash,
		Grants:    grants,
		CreatedAt: now.UTC(),
	}
	return secret, tok, nil
}
