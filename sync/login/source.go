package login

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"golang.org/x/oauth2"
)

// RefreshBefore is how long before its expiry a login is refreshed.
const RefreshBefore = 2 * time.Minute

// refreshTimeout bounds the token request of one refresh.
const refreshTimeout = 30 * time.Second

// ErrExpired means the login can no longer be refreshed: it has expired or
// was revoked at the identity provider.
var ErrExpired = errors.New("login expired or revoked")

// Source is the oauth2.TokenSource of a stored login. Every Token call
// re-reads the login when its file has changed (and only then the OS
// keyring, when the login keeps its tokens there), so a new "teammemd login"
// reaches a running daemon at its next request, and refreshes the login
// shortly before it expires, under a lock, so two processes sharing the
// login do not both spend its refresh token.
type Source struct {
	store  Store
	server string
	client *http.Client
	now    func() time.Time
	path   string

	// turn admits one call at a time; a caller waits for its turn only
	// as long as its context lasts.
	turn chan struct{}
	rec  Record
	seen os.FileInfo
}

// NewSource returns the token source of server's login in store. client
// calls the token endpoint; now is the clock expiry is judged by.
func NewSource(store Store, server string, client *http.Client, now func() time.Time) (*Source, error) {
	path, err := store.Path(server)
	if err != nil {
		return nil, err
	}
	return &Source{store: store, server: server, client: client, now: now, path: path, turn: make(chan struct{}, 1)}, nil
}

// Token implements oauth2.TokenSource: TokenContext without a context, its
// wait for another process's refresh bounded by lockWait alone.
func (s *Source) Token() (*oauth2.Token, error) { return s.TokenContext(context.Background()) }

// TokenContext returns the login's credential, refreshed first when it is
// about to expire. ctx bounds the waits for another call of this source
// and for another process's refresh of the login (at most lockWait). A
// refresh once begun runs to its end (at most refreshTimeout) whatever
// ctx does: the provider may spend the old refresh token as soon as it
// has the request, and a refresh given up on then would log the user out.
func (s *Source) TokenContext(ctx context.Context) (*oauth2.Token, error) {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for the login to %s: %w", s.server, ctx.Err())
	}
	defer func() { <-s.turn }()
	if err := s.reload(); err != nil {
		return nil, err
	}
	if s.fresh() {
		return s.token(), nil
	}
	err := s.refresh(ctx)
	if err != nil && !errors.Is(err, ErrExpired) && s.now().Before(s.rec.Expiry) {
		return s.token(), nil // still good: try to refresh again on the next call
	}
	if err != nil {
		return nil, err
	}
	return s.token(), nil
}

func (s *Source) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: s.rec.Bearer(), TokenType: "Bearer", Expiry: s.rec.Expiry}
}

// fresh reports a login that need not be refreshed yet: one that does not
// expire soon, or whose last refresh brought no ID token and whose kept
// one has not expired (refreshing again before then would bring none
// either).
func (s *Source) fresh() bool {
	if s.rec.Expiry.IsZero() {
		return true
	}
	if s.rec.IDTokenKept {
		return s.now().Before(s.rec.Expiry)
	}
	return s.now().Add(RefreshBefore).Before(s.rec.Expiry)
}

// reload reads the login file again when it is not the one last read.
func (s *Source) reload() error {
	fi, err := os.Stat(s.path)
	if err != nil {
		s.seen = nil
		return fmt.Errorf("%w to %s: run teammemd login --server %s", ErrNotLoggedIn, s.server, s.server)
	}
	if s.seen != nil && os.SameFile(fi, s.seen) && fi.ModTime().Equal(s.seen.ModTime()) && fi.Size() == s.seen.Size() {
		return nil
	}
	rec, err := s.store.load(s.path)
	if err != nil {
		return err
	}
	s.rec, s.seen = rec, fi
	return nil
}

// refresh trades the refresh token for new tokens and saves them, unless
// another process did so while this one waited for the lock. New tokens
// without an ID token, when the kept one has expired, are ErrExpired: the
// server would refuse the access token (see Record.update).
func (s *Source) refresh(ctx context.Context) error {
	if s.rec.RefreshToken == "" {
		return fmt.Errorf("%w: the login to %s has expired and cannot be refreshed: run teammemd login --server %s", ErrExpired, s.server, s.server)
	}
	release, err := lockLogin(ctx, s.path)
	if err != nil {
		return fmt.Errorf("refresh login to %s: %w", s.server, err)
	}
	defer release()
	if err := s.reload(); err != nil || s.fresh() {
		return err
	}
	tok, err := s.redeem()
	if err != nil {
		return err
	}
	rec := s.rec
	rec.update(tok, s.now())
	if err := s.store.Save(rec); err != nil {
		return err
	}
	s.seen = nil
	if err := s.reload(); err != nil {
		return err
	}
	if !s.fresh() && s.rec.IDTokenKept {
		return fmt.Errorf("%w: the identity provider refreshed the login to %s without an ID token, and the last one has expired: "+
			"log in again: run teammemd login --server %s", ErrExpired, s.server, s.server)
	}
	return nil
}

// redeem asks the token endpoint for new tokens for the refresh token.
func (s *Source) redeem() (*oauth2.Token, error) {
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), oauth2.HTTPClient, s.client), refreshTimeout)
	defer cancel()
	oc := &oauth2.Config{ClientID: s.rec.ClientID, Endpoint: oauth2.Endpoint{TokenURL: s.rec.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams}}
	tok, err := oc.TokenSource(ctx, &oauth2.Token{RefreshToken: s.rec.RefreshToken}).Token()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
		return nil, fmt.Errorf("%w: the identity provider refused to refresh the login to %s: run teammemd login --server %s", ErrExpired, s.server, s.server)
	}
	if err != nil {
		return nil, fmt.Errorf("refresh login to %s: %w", s.server, err)
	}
	return tok, nil
}
