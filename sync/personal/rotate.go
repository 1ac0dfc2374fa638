package personal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// ErrRotatedElsewhere is returned when the server's key is neither this
// machine's current key nor one it is rotating away from: another machine
// changed it.
var ErrRotatedElsewhere = errors.New("the personal key was rotated on another machine; run teammemd personal join")

// ErrNotInitialized is returned when the server holds no personal key.
var ErrNotInitialized = errors.New("the server holds no personal key yet; run teammemd personal init")

// Rotation replaces a server's personal key: a new key wrapped to a new
// secret, every lane written with the old key copied into a lane of the
// new one and dropped. Each step can be repeated, so running it again
// after an interruption finishes the rotation; until it finishes the old
// key is kept beside the new one on this machine.
type Rotation struct {
	Client *memsync.Client
	Store  *KeyStore
	Server string // the server's URL, as the key store names it
	// Secret wraps the new key: a recovery code or a passphrase.
	Secret string
	// Published, when set, is called once the server holds the new key
	// wrapped to Secret: from then on Secret is what opens it, whatever
	// happens to the rest of the rotation.
	Published func(keyID string)
	// Progress, when set, is told of each lane as it is copied.
	Progress func(LaneCopied)
}

// LaneCopied is one lane a rotation moved to the new key.
type LaneCopied struct {
	From, To string // lane IDs
	Entries  int
}

// RotateResult says what a rotation did.
type RotateResult struct {
	Old, New string // key IDs
	Resumed  bool   // it finished a rotation begun before
	Lanes    []LaneCopied
}

// Run rotates the key, or finishes the rotation under way.
func (r Rotation) Run(ctx context.Context) (RotateResult, error) {
	if r.Secret == "" {
		return RotateResult{}, errors.New("rotate the personal key: the secret is empty")
	}
	keys, err := r.Store.Load(ctx, r.Server)
	if err != nil {
		return RotateResult{}, err
	}
	env, err := r.Client.PersonalKey(ctx)
	if err != nil {
		return RotateResult{}, notInitialized(err)
	}
	res, keys, err := r.begin(ctx, keys, env.KeyID)
	if err != nil {
		return res, err
	}
	if err := r.publish(ctx, keys, env.KeyID); err != nil {
		return res, err
	}
	if r.Published != nil {
		r.Published(keys.Current.ID())
	}
	if res.Lanes, err = r.copyLanes(ctx, keys); err != nil {
		return res, err
	}
	if err := r.Store.Save(ctx, r.Server, Keys{Current: keys.Current}); err != nil {
		return res, fmt.Errorf("every lane is on the new key, but the old key could not be dropped here: %w", err)
	}
	return res, nil
}

// notInitialized turns the server's "no key" answer into
// ErrNotInitialized.
func notInitialized(err error) error {
	var ae *api.Error
	if errors.As(err, &ae) && ae.Code == api.CodePersonalNotInitialized {
		return ErrNotInitialized
	}
	return err
}

// begin decides from this machine's keys and the server's key ID whether
// a rotation starts or resumes; a new one makes the new key and stores it
// beside the old before anything is sent, so that no later step can lose
// it.
func (r Rotation) begin(ctx context.Context, keys Keys, serverID string) (RotateResult, Keys, error) {
	switch {
	case len(keys.Previous) > 0 && (serverID == keys.Current.ID() || slices.ContainsFunc(keys.Previous, hasID(serverID))):
		old := keys.Previous[len(keys.Previous)-1].ID()
		return RotateResult{Old: old, New: keys.Current.ID(), Resumed: true}, keys, nil
	case serverID != keys.Current.ID():
		return RotateResult{}, keys, ErrRotatedElsewhere
	}
	k2, err := NewKey()
	if err != nil {
		return RotateResult{}, keys, err
	}
	next := Keys{Current: k2, Previous: []*Key{keys.Current}}
	if err := r.Store.Save(ctx, r.Server, next); err != nil {
		return RotateResult{}, keys, fmt.Errorf("store the new personal key (nothing was changed on the server): %w", err)
	}
	return RotateResult{Old: keys.Current.ID(), New: k2.ID()}, next, nil
}

func hasID(id string) func(*Key) bool { return func(k *Key) bool { return k.ID() == id } }

// publish wraps the new key to the secret and puts it on the server in
// place of the key it holds (the old one, or the new one wrapped to a
// secret an interrupted run may never have shown).
func (r Rotation) publish(ctx context.Context, keys Keys, serverID string) error {
	wrapped, err := Wrap(keys.Current, r.Secret)
	if err != nil {
		return err
	}
	_, err = r.Client.PutPersonalKey(ctx, api.KeyEnvelope{KeyID: keys.Current.ID(), Envelope: wrapped}, serverID)
	var ae *api.Error
	if errors.As(err, &ae) && ae.Status == http.StatusPreconditionFailed {
		return r.abandon(ctx, keys, serverID)
	}
	return err
}

// abandon handles a key the server replaced between the read and the
// write: another machine rotated meanwhile. A rotation that had not
// reached the server goes back to the key this machine had.
func (r Rotation) abandon(ctx context.Context, keys Keys, serverID string) error {
	if serverID != keys.Current.ID() && len(keys.Previous) == 1 {
		if err := r.Store.Save(ctx, r.Server, Keys{Current: keys.Previous[0]}); err != nil {
			return fmt.Errorf("%w (and putting the old key back failed: %v)", ErrRotatedElsewhere, err)
		}
	}
	return ErrRotatedElsewhere
}
