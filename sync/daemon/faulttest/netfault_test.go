package faulttest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/internal/proclab/labtest"
	"github.com/teammemd/teammemd/server/servertest/faultproxy"
)

// Network fault suite bounds: CI injects faults for ciFaultTime; long runs
// set TEAMMEMD_NETFAULT_DURATION (e.g. 10m).
const (
	ciFaultTime = 20 * time.Second
	warmUp      = 3 * time.Second
	faultRate   = 0.5
	// netSettle covers the longest retry backoff of the daemon (2 min)
	// that faults can have built up.
	netSettle = 150 * time.Second
	// maxRequestRate bounds requests per second from both daemons, over
	// the fault phase; maxPerSecond bounds any one second of it. A client
	// retrying without backoff sends hundreds a second.
	maxRequestRate = 10.0
	maxPerSecond   = 40
	// faultGrace is how much longer the faults may last until every kind
	// has been injected once: the daemons back off, and send few requests.
	faultGrace = time.Minute
)

// TestNetworkFaults runs both daemons through a proxy that fails half the
// requests (resets, 5xx, 429, latency, cut bodies, hung connections) while
// both teammates save notes, then heals it and checks that the daemons
// converge, no save was lost or stored twice, and the requests stayed
// bounded while the faults lasted.
func TestNetworkFaults(t *testing.T) {
	faultTime := labtest.EnvDuration(t, "TEAMMEMD_NETFAULT_DURATION", ciFaultTime)
	ctx, cancel := context.WithTimeout(context.Background(), faultTime+faultGrace+warmUp+netSettle+2*time.Minute)
	defer cancel()
	r := newRig(ctx, t, suiteTiming)
	proxy, err := faultproxy.Start(r.server.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	r.startDaemons(ctx, proxy.URL)
	r.startWriters(ctx)
	if err := proclab.Pause(ctx, warmUp); err != nil {
		t.Fatal(err)
	}
	faults := span{from: time.Now()}
	for _, s := range r.sides {
		s.up.markDown(faults.from) // no daemon can be held to a save while requests fail
	}
	proxy.SetFaults(faultRate)
	pauseErr := proclab.Pause(ctx, faultTime)
	if pauseErr == nil {
		pauseErr = untilEveryFault(ctx, proxy, faults.from, faultGrace)
	}
	r.stopWriting()
	faults.to = time.Now()
	proxy.Heal()
	if pauseErr != nil {
		t.Fatal(pauseErr)
	}
	res := r.verify(ctx, netSettle)
	checkRequests(t, proxy.Records(), faults, &res)
	r.report(res, fmt.Sprintf("faults for %s", faults.length().Round(time.Second)))
}

// untilEveryFault waits, up to grace, until the proxy has injected every
// kind of fault since from.
func untilEveryFault(ctx context.Context, proxy *faultproxy.Proxy, from time.Time, grace time.Duration) error {
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		seen := map[faultproxy.Fault]bool{}
		for _, rec := range proxy.Records() {
			if !rec.Time.Before(from) {
				seen[rec.Fault] = true
			}
		}
		all := true
		for _, f := range faultproxy.Faults() {
			all = all && seen[f]
		}
		if all {
			return nil
		}
		if err := proclab.Pause(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// checkRequests checks that every fault kind was injected and that the
// daemons' requests stayed within the rate bounds during the faults.
func checkRequests(t *testing.T, recs []faultproxy.Record, faults span, res *tally) {
	t.Helper()
	kinds := map[faultproxy.Fault]int{}
	perSecond := map[int64]int{}
	n := 0
	for _, rec := range recs {
		if rec.Time.Before(faults.from) || !rec.Time.Before(faults.to) {
			continue
		}
		n++
		kinds[rec.Fault]++
		perSecond[rec.Time.Sub(faults.from).Milliseconds()/1000]++
	}
	busiest := 0
	for _, c := range perSecond {
		busiest = max(busiest, c)
	}
	rate := float64(n) / faults.length().Seconds()
	t.Logf("during the faults: %d requests, %.1f/s, busiest second %d; by fault: %v", n, rate, busiest, kinds)
	if rate > maxRequestRate {
		res.violate("requests not bounded: %.1f requests/s from both daemons during the faults, want at most %.0f", rate, maxRequestRate)
	}
	if busiest > maxPerSecond {
		res.violate("requests not bounded: %d requests in one second during the faults, want at most %d", busiest, maxPerSecond)
	}
	for _, f := range faultproxy.Faults() {
		if kinds[f] == 0 {
			res.violate("fault %q was never injected: the faults lasted too briefly to prove anything about it", f)
		}
	}
}
