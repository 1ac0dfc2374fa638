package personal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/personal"
)

// rotationLab is one subject on a real server, with a machine's key store
// holding its key and lanes written with it.
type rotationLab struct {
	srv   *servertest.Server
	store *personal.KeyStore
	k1    *personal.Key
	notes []personal.Note
}

func newRotationLab(t *testing.T) *rotationLab {
	t.Helper()
	ctx := context.Background()
	l := &rotationLab{srv: servertest.Start(t), store: personal.NewKeyStore(t.TempDir(), "file")}
	l.store.Keyring = nil
	var err error
	if l.k1, err = personal.NewKey(); err != nil {
		t.Fatal(err)
	}
	c := l.client(t, nil)
	// The rotation never reads the old envelope: an armored stand-in spares
	// the test a scrypt run.
	env := "-----BEGIN AGE ENCRYPTED FILE-----\nc3RhbmQtaW4=\n-----END AGE ENCRYPTED FILE-----\n"
	if _, err := c.PutPersonalKey(ctx, api.KeyEnvelope{KeyID: l.k1.ID(), Envelope: env}, ""); err != nil {
		t.Fatal(err)
	}
	if err := l.store.Save(ctx, l.srv.URL, personal.Keys{Current: l.k1}); err != nil {
		t.Fatal(err)
	}
	for _, project := range []string{"acme/app", "acme/web"} {
		batch := map[string]string{}
		for i := range 3 {
			n := personal.Note{Project: project, Path: fmt.Sprintf("note%d.md", i), Content: []byte(fmt.Sprintf("# %s %d\n", project, i))}
			key, value, err := l.k1.Seal(n)
			if err != nil {
				t.Fatal(err)
			}
			batch[key] = value
			l.notes = append(l.notes, n)
		}
		l.put(t, c, l.k1, project, batch)
	}
	return l
}

// client is a client of the lab's server without retries; rt, when set,
// stands between it and the server.
func (l *rotationLab) client(t *testing.T, rt http.RoundTripper) *memsync.Client {
	t.Helper()
	opts := []memsync.ClientOption{memsync.WithRetry(0, time.Millisecond, time.Millisecond)}
	if rt != nil {
		opts = append(opts, memsync.WithTransport(rt))
	}
	c, err := memsync.NewClient(l.srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: l.srv.Token}), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (l *rotationLab) put(t *testing.T, c *memsync.Client, k *personal.Key, project string, entries map[string]string) {
	t.Helper()
	body, _ := json.Marshal(api.PutRequest{Entries: entries})
	if _, err := c.PersonalPut(context.Background(), k.LaneID(project), k.ID(), "", body); err != nil {
		t.Fatal(err)
	}
}

// check asserts that the server holds every note of the lab, under k
// alone, and that this machine keeps k alone.
func (l *rotationLab) check(t *testing.T, k *personal.Key) {
	t.Helper()
	ctx := context.Background()
	c := l.client(t, nil)
	lanes, err := c.PersonalLanes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lanes.KeyID != k.ID() || len(lanes.Lanes) != 2 {
		t.Fatalf("after the rotation the server names key %s with %d lanes, want %s with 2", lanes.KeyID, len(lanes.Lanes), k.ID())
	}
	for _, n := range l.notes {
		full, _, err := c.PersonalGet(ctx, k.LaneID(n.Project), k.ID(), "")
		if err != nil {
			t.Fatal(err)
		}
		wire := k.EntryKey(n.Project, n.Path)
		got, by, err := personal.Open([]*personal.Key{k}, wire, full.Content.Entries[wire])
		if err != nil || by != k || string(got.Content) != string(n.Content) {
			t.Errorf("%s %s under the new key: %q, %v; want %q", n.Project, n.Path, got.Content, err, n.Content)
		}
	}
	keys, err := l.store.Load(ctx, l.srv.URL)
	if err != nil || keys.Current.ID() != k.ID() || len(keys.Previous) != 0 {
		t.Errorf("this machine keeps %+v, %v; want the new key alone", keys, err)
	}
}

func (l *rotationLab) rotation(c *memsync.Client, secret string) personal.Rotation {
	return personal.Rotation{Client: c, Store: l.store, Server: l.srv.URL, Secret: secret}
}

func TestRotate(t *testing.T) {
	l := newRotationLab(t)
	ctx := context.Background()
	var published string
	r := l.rotation(l.client(t, nil), "second code of the lab")
	r.Published = func(id string) { published = id }
	res, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Old != l.k1.ID() || res.New == l.k1.ID() || res.New != published || res.Resumed || len(res.Lanes) != 2 {
		t.Fatalf("Run = %+v (published %s), want two lanes moved from %s to a new key", res, published, l.k1.ID())
	}
	keys, _ := l.store.Load(ctx, l.srv.URL)
	l.check(t, keys.Current)
	env, err := l.client(t, nil).PersonalKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if k, err := personal.Unwrap(env.Envelope, "second code of the lab"); err != nil || k.ID() != res.New {
		t.Errorf("the new code opens %v, %v; want key %s", k, err, res.New)
	}
}

// failing fails the first request fail matches, as a lost connection
// would, and passes every other to the server.
type failing struct {
	fail   func(*http.Request) bool
	failed atomic.Bool
}

func (f *failing) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.fail(r) && f.failed.CompareAndSwap(false, true) {
		return nil, errors.New("the connection dropped")
	}
	return http.DefaultTransport.RoundTrip(r)
}

// A rotation interrupted at any step is finished by running it again.
func TestRotateInterruptedIsFinishedByARerun(t *testing.T) {
	for _, c := range []struct {
		name string
		fail func(*http.Request) bool
	}{
		{"before the new key reaches the server", func(r *http.Request) bool {
			return r.Method == http.MethodPut && r.URL.Path == api.PersonalKeyPath
		}},
		{"while the lanes are copied", func(r *http.Request) bool {
			return r.Method == http.MethodPut && r.URL.Path == api.PersonalPath
		}},
		{"before an old lane is dropped", func(r *http.Request) bool { return r.Method == http.MethodDelete }},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newRotationLab(t)
			ctx := context.Background()
			f := &failing{fail: c.fail}
			if _, err := l.rotation(l.client(t, f), "second code of the lab").Run(ctx); err == nil || !strings.Contains(err.Error(), "connection dropped") {
				t.Fatalf("the interrupted rotation = %v, want the dropped connection", err)
			}
			keys, err := l.store.Load(ctx, l.srv.URL)
			if err != nil || len(keys.Previous) != 1 || keys.Previous[0].ID() != l.k1.ID() {
				t.Fatalf("after the interruption this machine keeps %+v, %v; want the new key with the old beside it", keys, err)
			}
			res, err := l.rotation(l.client(t, nil), "third code of the lab").Run(ctx)
			if err != nil || !res.Resumed || res.New != keys.Current.ID() || res.Old != l.k1.ID() {
				t.Fatalf("the re-run = %+v, %v; want the rotation to %s resumed", res, err, keys.Current.ID())
			}
			l.check(t, keys.Current)
			if env, err := l.client(t, nil).PersonalKey(ctx); err != nil || env.KeyID != res.New {
				t.Errorf("the server's key after the re-run is %s (%v), want %s", env.KeyID, err, res.New)
			}
		})
	}
}

// A machine whose key is not the server's may not rotate: it must join.
func TestRotateRefusesAKeyRotatedElsewhere(t *testing.T) {
	l := newRotationLab(t)
	ctx := context.Background()
	other := personal.NewKeyStore(t.TempDir(), "file")
	other.Keyring = nil
	stale, _ := personal.NewKey()
	if err := other.Save(ctx, l.srv.URL, personal.Keys{Current: stale}); err != nil {
		t.Fatal(err)
	}
	r := personal.Rotation{Client: l.client(t, nil), Store: other, Server: l.srv.URL, Secret: "x"}
	if _, err := r.Run(ctx); !errors.Is(err, personal.ErrRotatedElsewhere) {
		t.Errorf("Run with a stale key = %v, want ErrRotatedElsewhere", err)
	}
	if env, _ := l.client(t, nil).PersonalKey(ctx); env.KeyID != l.k1.ID() {
		t.Errorf("a refused rotation changed the server's key to %s", env.KeyID)
	}
}
