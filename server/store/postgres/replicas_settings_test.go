package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// TestExchangeSettings: each replica sees the others' latest record, not
// its own, not one the database saw longer than ttl ago, and not one
// withdrawn.
func TestExchangeSettings(t *testing.T) {
	db := pgtest.Schema(t)
	one, two := openURL(t, db), openURL(t, db)
	ctx := context.Background()
	if recs, err := one.ExchangeSettings(ctx, "one", []byte(`{"repos":[]}`), time.Minute); err != nil || len(recs) != 0 {
		t.Fatalf("first exchange = %+v, %v, want no peers", recs, err)
	}
	recs, err := two.ExchangeSettings(ctx, "two", []byte(`{"repos":[{"name":"acme/app","review":"required"}]}`), time.Minute)
	if err != nil || len(recs) != 1 || recs[0].Replica != "one" || string(recs[0].Settings) != `{"repos": []}` || recs[0].Seen.IsZero() {
		t.Fatalf("second replica's exchange = %+v, %v, want one's record", recs, err)
	}
	if recs, err = one.ExchangeSettings(ctx, "one", []byte(`{"repos":[]}`), time.Minute); err != nil || len(recs) != 1 || recs[0].Replica != "two" {
		t.Fatalf("first replica's next exchange = %+v, %v, want two's record", recs, err)
	}
	pgtest.Exec(t, db, "UPDATE replica_settings SET seen_at = seen_at - 90000000000 WHERE replica = 'two'") // two last seen 90 s ago
	if recs, err = one.ExchangeSettings(ctx, "one", []byte(`{"repos":[]}`), time.Minute); err != nil || len(recs) != 0 {
		t.Fatalf("exchange 90 s after two's, ttl a minute = %+v, %v, want none", recs, err)
	}
	if recs, err = one.ExchangeSettings(ctx, "one", []byte(`{"repos":[]}`), 2*time.Minute); err != nil || len(recs) != 1 {
		t.Fatalf("exchange 90 s after two's, ttl two minutes = %+v, %v, want two's record", recs, err)
	}
	if err := one.WithdrawSettings(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	if recs, err = two.ExchangeSettings(ctx, "two", []byte(`{"repos":[]}`), time.Hour); err != nil || len(recs) != 0 {
		t.Fatalf("exchange after one withdrew = %+v, %v, want none", recs, err)
	}
}

// TestSettingsStampedByTheDatabase: a record is stamped with the
// database's clock, so a replica whose own clock runs minutes off is seen
// by its peers all the same (each replica once stamped its record with
// its own clock, and a peer whose clock ran over a minute behind was
// never seen: its review requirement was dropped).
func TestSettingsStampedByTheDatabase(t *testing.T) {
	db := pgtest.Schema(t)
	one, two := openURL(t, db), openURL(t, db)
	ctx := context.Background()
	if _, err := one.ExchangeSettings(ctx, "one", []byte(`{"repos":[]}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	var lag int64
	if err := one.pool.QueryRow(ctx, `SELECT `+dbNowNanos+` - seen_at FROM replica_settings WHERE replica = 'one'`).Scan(&lag); err != nil {
		t.Fatal(err)
	}
	if lag < 0 || lag > int64(time.Minute) {
		t.Fatalf("one's record is %v behind the database's clock, want it stamped by that clock", time.Duration(lag))
	}
	if recs, err := two.ExchangeSettings(ctx, "two", []byte(`{"repos":[]}`), time.Minute); err != nil || len(recs) != 1 {
		t.Fatalf("two's exchange = %+v, %v, want one's record", recs, err)
	}
}
