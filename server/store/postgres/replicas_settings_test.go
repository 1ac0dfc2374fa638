package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// TestExchangeSettings: each replica sees the others' latest record, not
// its own, not one older than since, and not one withdrawn.
func TestExchangeSettings(t *testing.T) {
	db := pgtest.Schema(t)
	one, two := openURL(t, db), openURL(t, db)
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	if recs, err := one.ExchangeSettings(ctx, "one", []byte(`{"repos":[]}`), t0, t0.Add(-time.Minute)); err != nil || len(recs) != 0 {
		t.Fatalf("first exchange = %+v, %v, want no peers", recs, err)
	}
	recs, err := two.ExchangeSettings(ctx, "two", []byte(`{"repos":[{"name":"acme/app","review":"required"}]}`), t0, t0.Add(-time.Minute))
	if err != nil || len(recs) != 1 || recs[0].Replica != "one" || string(recs[0].Settings) != `{"repos": []}` || !recs[0].Seen.Equal(t0) {
		t.Fatalf("second replica's exchange = %+v, %v, want one's record", recs, err)
	}
	t1 := t0.Add(30 * time.Second)
	if recs, err = one.ExchangeSettings(ctx, "one", []byte(`{"repos":[]}`), t1, t1.Add(-time.Minute)); err != nil || len(recs) != 1 || recs[0].Replica != "two" {
		t.Fatalf("first replica's next exchange = %+v, %v, want two's record", recs, err)
	}
	t2 := t0.Add(80 * time.Second) // two last recorded 80 s ago, one 50 s ago
	if recs, err = two.ExchangeSettings(ctx, "two", []byte(`{"repos":[]}`), t2, t2.Add(-time.Minute)); err != nil || len(recs) != 1 {
		t.Fatalf("exchange within a minute of one's = %+v, %v, want one's record", recs, err)
	}
	if recs, err = one.ExchangeSettings(ctx, "one", []byte(`{"repos":[]}`), t2.Add(2*time.Minute), t2.Add(time.Minute)); err != nil || len(recs) != 0 {
		t.Fatalf("exchange over a minute after two's = %+v, %v, want none", recs, err)
	}
	if err := one.WithdrawSettings(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	if recs, err = two.ExchangeSettings(ctx, "two", []byte(`{"repos":[]}`), t2, t2.Add(-time.Hour)); err != nil || len(recs) != 0 {
		t.Fatalf("exchange after one withdrew = %+v, %v, want none", recs, err)
	}
}
