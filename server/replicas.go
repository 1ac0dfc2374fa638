package server

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// A replica records its settings every replicaExchangeEvery, and a peer's
// record counts for replicaTTL after the peer last recorded it, by the
// store's clock: a replica that stopped without withdrawing its record (a
// crash) is forgotten then.
const (
	replicaExchangeEvery = 10 * time.Second
	replicaTTL           = time.Minute
	replicaCallTimeout   = 10 * time.Second
	// replicaWithdrawTimeout bounds the withdrawal at stop, which must not
	// hold up a shutdown while the database does not answer: the record
	// then lapses after replicaTTL.
	replicaWithdrawTimeout = 2 * time.Second
)

// replicaSettings are the settings a replica records for its peers: those
// that must agree across replicas.
type replicaSettings struct {
	Repos []RepoConfig `json:"repos"`
}

// replicas exchanges this server's [[server.repo]] entries with the other
// replicas of its store, and knows its live peers'. A repo is held for
// review when this server's entries or any live peer's require it, so a
// replica whose config lacks an entry, or lags behind a rollout, cannot
// store writes its peers would hold.
type replicas struct {
	st    store.ReplicaSettings
	id    string
	own   []byte       // this server's settings, as recorded
	repos []RepoConfig // this server's entries, normalized
	log   *slog.Logger
	peer  atomic.Pointer[[][]RepoConfig] // each live peer's entries
	// differ is the gauge of live peers whose settings differ from ours.
	differ func(float64)
	// logged is the last set of differing peers logged; the loop's alone.
	logged string
}

// newReplicas returns the exchange for repos on st.
func newReplicas(st store.ReplicaSettings, repos []RepoConfig, log *slog.Logger, differ func(float64)) (*replicas, error) {
	repos = normalizeRepos(repos)
	own, err := json.Marshal(replicaSettings{Repos: repos})
	if err != nil {
		return nil, fmt.Errorf("encode replica settings: %w", err)
	}
	host, _ := os.Hostname()
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	id := cmp.Or(host, "replica") + "-" + hex.EncodeToString(suffix)
	return &replicas{st: st, id: id, own: own, repos: repos, log: log, differ: differ}, nil
}

// normalizeRepos returns repos with an omitted review written as "off", so
// that the same entries compare equal.
func normalizeRepos(repos []RepoConfig) []RepoConfig {
	norm := make([]RepoConfig, len(repos))
	for i, r := range repos {
		norm[i] = RepoConfig{Name: r.Name, Review: cmp.Or(r.Review, ReviewOff)}
	}
	return norm
}

// requiresReview reports whether any live peer holds writes to repo for
// review.
func (r *replicas) requiresReview(repo string) bool {
	if r == nil {
		return false
	}
	p := r.peer.Load()
	return p != nil && slices.ContainsFunc(*p, func(repos []RepoConfig) bool { return reviewRequired(repos, repo) })
}

// exchange records this replica's settings and learns its live peers'. On
// failure it keeps what it knew and returns the store's error.
func (r *replicas) exchange(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, replicaCallTimeout)
	defer cancel()
	recs, err := r.st.ExchangeSettings(ctx, r.id, r.own, replicaTTL)
	if err != nil {
		return err // the store's error says which step failed
	}
	peers := make([][]RepoConfig, 0, len(recs))
	var differ []string
	for _, rec := range recs {
		var s replicaSettings
		if err := json.Unmarshal(rec.Settings, &s); err != nil {
			r.log.Error("a replica's settings do not decode; left out", "replica", rec.Replica, "err", err)
			continue
		}
		peers = append(peers, s.Repos)
		if !slices.Equal(normalizeRepos(s.Repos), r.repos) {
			differ = append(differ, rec.Replica)
		}
	}
	r.peer.Store(&peers)
	r.differ(float64(len(differ)))
	r.report(differ)
	return nil
}

// report logs a change in which live peers' settings differ from ours.
func (r *replicas) report(differ []string) {
	key := strings.Join(differ, ",")
	if key == r.logged {
		return
	}
	r.logged = key
	if len(differ) == 0 {
		r.log.Info("replicas' [[server.repo]] settings agree", "replica", r.id)
		return
	}
	r.log.Error("replicas' [[server.repo]] settings differ: give every replica the same entries; meanwhile a repo any live replica holds for review is held on every one",
		"replica", r.id, "differing", differ)
}

// run exchanges every replicaExchangeEvery until ctx is done, then
// withdraws this replica's record.
func (r *replicas) run(ctx context.Context) {
	t := time.NewTicker(replicaExchangeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), replicaWithdrawTimeout)
			defer cancel()
			if err := r.st.WithdrawSettings(wctx, r.id); err != nil {
				r.log.Warn("withdraw replica settings", "err", err)
			}
			return
		case <-t.C:
			if err := r.exchange(ctx); err != nil {
				r.log.Warn("replica settings exchange failed; keeping the peers' last known settings", "err", err)
			}
		}
	}
}
