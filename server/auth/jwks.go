package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"golang.org/x/sync/singleflight"
)

// keySet holds the provider's published signing keys. It fetches them again
// only for a token that names a key it does not hold, at most once per
// interval (or discoveryRetry after a failed fetch), so tokens the provider
// never signed cost it nothing: go-oidc's RemoteKeySet fetches again for
// every signature that does not verify. It is the verifier's oidc.KeySet.
type keySet struct {
	url      string
	algs     []jose.SignatureAlgorithm
	interval time.Duration
	up       *upstream
	now      func() time.Time
	flight   singleflight.Group

	mu        sync.Mutex
	keys      []jose.JSONWebKey
	retired   []string  // ids of the keys the last good fetch dropped
	fetchedAt time.Time // of the last fetch, good or not
	failed    bool      // the last fetch failed
}

func newKeySet(url string, algs []jose.SignatureAlgorithm, interval time.Duration, up *upstream, now func() time.Time) *keySet {
	return &keySet{url: url, algs: algs, interval: interval, up: up, now: now}
}

// VerifySignature implements oidc.KeySet with the keys held; it never
// fetches (ensure does).
func (k *keySet) VerifySignature(_ context.Context, jwt string) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(jwt, k.algs)
	if err != nil {
		return nil, fmt.Errorf("parse the token: %w", err)
	}
	kid := jws.Signatures[0].Header.KeyID
	k.mu.Lock()
	keys := k.keys
	k.mu.Unlock()
	for _, key := range keys {
		if kid != "" && key.KeyID != kid {
			continue
		}
		if payload, err := jws.Verify(&key); err == nil {
			return payload, nil
		}
	}
	return nil, errors.New("no key the provider publishes verifies the signature")
}

// ensure fetches the key set when it does not hold key kid (any key, for a
// token that names none) and a fetch is due. It returns an *UnavailableError
// when the fetch failed or the key is not held and no fetch is due yet, and
// a rejection when the provider, asked just now, does not publish the key,
// or no longer does.
func (k *keySet) ensure(ctx context.Context, kid string) error {
	switch held, retired := k.lookup(kid); {
	case held:
		return nil
	case retired:
		return reject(ModeOIDC, ReasonInvalid, "the token is signed with a key this server's provider no longer publishes: run teammemd login again")
	}
	fetched, err, _ := k.flight.Do("", func() (any, error) {
		return k.fetchIfDue(context.WithoutCancel(ctx))
	})
	switch {
	case err != nil:
		return err
	case k.held(kid):
		return nil
	case !fetched.(bool):
		return unavailable(ModeOIDC, "the token names a key the provider did not publish when its keys were last fetched; they are fetched again at most every %s", k.interval)
	}
	return reject(ModeOIDC, ReasonInvalid, "the token names a key this server's provider does not publish: run teammemd login again")
}

// lookup reports whether key kid is held, or was dropped by the last fetch.
func (k *keySet) lookup(kid string) (held, retired bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, key := range k.keys {
		if kid == "" || key.KeyID == kid {
			return true, false
		}
	}
	return false, kid != "" && slices.Contains(k.retired, kid)
}

func (k *keySet) held(kid string) bool {
	held, _ := k.lookup(kid)
	return held
}

// fetchIfDue fetches the key set unless the last fetch was too recent, and
// reports whether it did.
func (k *keySet) fetchIfDue(ctx context.Context) (bool, error) {
	k.mu.Lock()
	wait := k.interval
	if k.failed {
		wait = min(wait, discoveryRetry)
	}
	now := k.now()
	due := k.fetchedAt.IsZero() || !now.Before(k.fetchedAt.Add(wait))
	if due {
		k.fetchedAt = now
	}
	k.mu.Unlock()
	if !due {
		return false, nil
	}
	keys, err := k.fetch(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.failed = err != nil
	if err != nil {
		return false, unavailable(ModeOIDC, "fetch the provider's keys: %w", err)
	}
	k.retired = k.retired[:0]
	for _, old := range k.keys {
		if !slices.ContainsFunc(keys, func(key jose.JSONWebKey) bool { return key.KeyID == old.KeyID }) {
			k.retired = append(k.retired, old.KeyID)
		}
	}
	k.keys = keys
	return true, nil
}

// fetch reads the key set, keeping the public signing keys it can use and
// skipping the others, as RFC 7517 section 5 asks.
func (k *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	ans, err := k.up.getJSON(ctx, ModeOIDC, k.url, "", nil, &set)
	if err != nil {
		return nil, err
	}
	if ans.status != http.StatusOK {
		return nil, fmt.Errorf("%s answered %d", k.url, ans.status)
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var key jose.JSONWebKey
		if json.Unmarshal(raw, &key) != nil || !key.Valid() || !key.IsPublic() || (key.Use != "" && key.Use != "sig") {
			continue
		}
		keys = append(keys, key)
	}
	return keys, nil
}
