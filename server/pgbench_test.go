package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// BenchmarkPut16ClientsPostgres is BenchmarkPut16Clients on one replica
// on PostgreSQL (synchronous_commit on: every PUT is durable).
func BenchmarkPut16ClientsPostgres(b *testing.B) {
	r := startPGReplica(b, pgtest.Database(b))
	benchPut16(b, r.Token, strings.Repeat("x", 4096-40), r.URL)
}

// BenchmarkPut16ClientsPostgres2Replicas spreads the 16 clients over two
// replicas on one PostgreSQL database, all writing to one repo.
func BenchmarkPut16ClientsPostgres2Replicas(b *testing.B) {
	db := pgtest.Database(b)
	one, two := startPGReplica(b, db), startPGReplica(b, db)
	benchPut16(b, one.Token, strings.Repeat("x", 4096-40), one.URL, two.URL)
}

// BenchmarkWakeCrossReplica measures how long after a PUT through replica 1
// answers 200 each of 100 clients held in a change wait on replica 2 has
// its answer, through PostgreSQL LISTEN/NOTIFY.
func BenchmarkWakeCrossReplica(b *testing.B) {
	const waiting = 100
	db := pgtest.Database(b)
	writer, waiter := startPGReplica(b, db), startPGReplica(b, db)
	c := benchClient()
	query := api.Path + "?" + memQuery(repo)
	_, out := send(b, c, http.MethodPut, writer.URL+query, writer.Token, `{"entries":{"a.md":"0"}}`)
	current := checksumFrom(b, out)
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		arrived := make(chan time.Time, waiting)
		var wg sync.WaitGroup
		for range waiting {
			wg.Go(func() {
				code, _ := send(b, c, http.MethodGet, waiter.URL+query+"&view=hashes&wait=30", waiter.Token, "", "If-None-Match", api.ETag(current))
				if code != http.StatusOK {
					b.Errorf("wait = %d, want 200", code)
				}
				arrived <- time.Now()
			})
		}
		awaitBenchWaiters(b, c, waiter.URL, waiting)
		b.StartTimer()
		code, out := send(b, c, http.MethodPut, writer.URL+query, writer.Token, fmt.Sprintf(`{"entries":{"a.md":"%d"}}`, i+1))
		acked := time.Now()
		if code != http.StatusOK {
			b.Fatalf("PUT = %d %s", code, out)
		}
		wg.Wait()
		close(arrived)
		for at := range arrived {
			lat = append(lat, at.Sub(acked))
		}
		current = checksumFrom(b, out)
	}
	b.StopTimer()
	reportLatency(b, lat)
}
