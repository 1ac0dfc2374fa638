package server

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/teammemd/teammemd/server/store"
)

// metrics are the server's Prometheus collectors.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	storeOps *prometheus.HistogramVec
	waiters  prometheus.Gauge
	// waitRefusals counts change waits refused a slot, by reason.
	waitRefusals *prometheus.CounterVec
	// waitsCarried counts parked change waits carried to the checksum of
	// their own client's write instead of answered with it.
	waitsCarried prometheus.Counter
	// parked is the change waits held on their connection alone, and
	// writeHints the write hints sent to them (parkhint.go).
	parked     prometheus.Gauge
	writeHints prometheus.Counter
	// writeWarms counts the warm-ups of the store's writer run for an
	// announced write (parkhint.go).
	writeWarms prometheus.Counter
	putBytes   prometheus.Counter
	secrets    prometheus.Counter
	// replicasDiffer is how many live replicas have other [[server.repo]]
	// entries than this one.
	replicasDiffer prometheus.Gauge
}

// newMetrics registers the collectors with reg, or with a registry of its
// own when reg is nil. It returns the gatherer /metrics serves, nil when reg
// cannot be gathered.
func newMetrics(reg prometheus.Registerer) (*metrics, prometheus.Gatherer, error) {
	var gatherer prometheus.Gatherer
	if reg == nil {
		own := prometheus.NewRegistry()
		own.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		reg, gatherer = own, own
	} else if g, ok := reg.(prometheus.Gatherer); ok {
		gatherer = g
	}
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "teammemd_http_requests_total",
			Help: "HTTP requests answered, by route and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "teammemd_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, change waits included, by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10, 30, 70},
		}, []string{"route"}),
		storeOps: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "teammemd_store_operation_duration_seconds",
			Help:    "Time of a store operation, by operation.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}, []string{"op"}),
		waiters: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "teammemd_change_waiters",
			Help: "Clients currently held in a change wait.",
		}),
		waitRefusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "teammemd_change_wait_refusals_total",
			Help: "Change waits refused at once, by reason: the server's cap (server) or the subject's (subject).",
		}, []string{"reason"}),
		waitsCarried: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "teammemd_change_waits_carried_total",
			Help: "Change waits carried to the checksum their own client's write made instead of answered with it.",
		}),
		parked: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "teammemd_change_waits_parked",
			Help: "Change waits held on their connection alone (HTTP/1.1, a team repo): those write hints reach.",
		}),
		writeHints: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "teammemd_write_hints_total",
			Help: "Write hints sent to parked change waits that asked for them.",
		}),
		writeWarms: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "teammemd_write_warmups_total",
			Help: "Warm-ups of the store's writer run for a write a client announced (SQLite store).",
		}),
		putBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "teammemd_put_bytes_total",
			Help: "Bytes of PUT bodies received.",
		}),
		secrets: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "teammemd_put_secret_rejections_total",
			Help: "PUTs refused because a value held a secret.",
		}),
		replicasDiffer: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "teammemd_replica_settings_differing",
			Help: "Live replicas of the shared store whose [[server.repo]] entries differ from this server's.",
		}),
	}
	for _, reason := range []string{refusedServer, refusedSubject} {
		m.waitRefusals.WithLabelValues(reason) // each reason's series from the start, at 0, for alerts to read
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.storeOps, m.waiters, m.waitRefusals, m.waitsCarried, m.parked, m.writeHints, m.writeWarms, m.putBytes, m.secrets, m.replicasDiffer} {
		if err := reg.Register(c); err != nil {
			return nil, nil, fmt.Errorf("register metrics: %w", err)
		}
	}
	return m, gatherer, nil
}

// instrumentedStore times every store operation the server makes.
type instrumentedStore struct {
	store.Store
	m *metrics
}

func (s *instrumentedStore) observe(op string, start time.Time) {
	s.m.storeOps.WithLabelValues(op).Observe(time.Since(start).Seconds())
}

func (s *instrumentedStore) Snapshot(ctx context.Context, repo string, withValues bool) (store.Snapshot, error) {
	defer s.observe("snapshot", time.Now())
	return s.Store.Snapshot(ctx, repo, withValues)
}

func (s *instrumentedStore) SnapshotOf(ctx context.Context, repo string, keys []string) (store.Snapshot, error) {
	defer s.observe("snapshot_of", time.Now())
	return s.Store.SnapshotOf(ctx, repo, keys)
}

func (s *instrumentedStore) Apply(ctx context.Context, w store.Write) (store.Result, error) {
	defer s.observe("apply", time.Now())
	return s.Store.Apply(ctx, w)
}

func (s *instrumentedStore) History(ctx context.Context, q store.HistoryQuery, yield func(store.Revision) error) error {
	defer s.observe("history", time.Now())
	return s.Store.History(ctx, q, yield)
}

func (s *instrumentedStore) PruneHistory(ctx context.Context, keep int, olderThan time.Time) (int64, error) {
	defer s.observe("prune_history", time.Now())
	return s.Store.PruneHistory(ctx, keep, olderThan)
}
