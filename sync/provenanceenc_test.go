package memsync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// sameProvenanceAsMarshal fails t unless encodeProvenance writes p as
// json.Marshal does, or fails where it fails.
func sameProvenanceAsMarshal(t testing.TB, p *Provenance) {
	t.Helper()
	want, wantErr := json.Marshal(p)
	// A fresh buffer, and one an earlier, longer record filled.
	for _, buf := range [][]byte{nil, bytes.Repeat([]byte(`{"x":1}`), len(want)+1)} {
		got, err := encodeProvenance(p, buf)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("encodeProvenance() error = %v, json.Marshal error %v", err, wantErr)
		}
		if string(got) != string(want) {
			t.Fatalf("encodeProvenance:\n got %s\nwant %s", got, want)
		}
	}
}

// Every field of the record and of a change is set, so that the
// comparison covers each, one added later included.
func TestEncodeProvenanceEveryField(t *testing.T) {
	p := &Provenance{Format: provenanceFormat, Repo: "acme/app", Server: "h:1", StoreID: "s1", Checksum: "sha256:00",
		Version: 7, Complete: true, Keys: map[string]Change{
			"a.md": {Version: 7, Subject: "ann", Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Checksum: "sha256:01", Deleted: true},
		}}
	for _, v := range []reflect.Value{reflect.ValueOf(p).Elem(), reflect.ValueOf(p.Keys["a.md"])} {
		for i := range v.NumField() {
			if v.Field(i).IsZero() {
				t.Errorf("the test leaves %s.%s unset; set it", v.Type().Name(), v.Type().Field(i).Name)
			}
		}
	}
	sameProvenanceAsMarshal(t, p)
	p.Keys = nil
	sameProvenanceAsMarshal(t, p)
	p.Keys = map[string]Change{}
	sameProvenanceAsMarshal(t, p)
	sameProvenanceAsMarshal(t, &Provenance{})
}

// appendChange writes Change's fields by hand: a field added to it must
// be added there too.
func TestEncodeProvenanceChangeFields(t *testing.T) {
	wantJSONFields[Change](t, "appendChange", "version", "subject", "time", "checksum,omitempty", "deleted,omitempty")
}

// randTime is a time encoding/json writes in each of its forms (zones,
// fractions) or refuses (a year past 9999).
func randTime(r *rand.Rand) time.Time {
	t := time.Unix(r.Int64N(1e10)-1e9, r.Int64N(1e9)*int64(r.IntN(2)))
	switch r.IntN(5) {
	case 0:
		return t.UTC()
	case 1:
		return t.In(time.FixedZone("", (r.IntN(48)-24)*1800))
	case 2:
		return t.In(time.FixedZone("odd", r.IntN(86400)-43200)) // seconds in the offset
	case 3:
		return t.AddDate(r.IntN(20000)-10000, 0, 0)
	}
	return t.Local()
}

func randProvenance(r *rand.Rand) *Provenance {
	p := &Provenance{Format: r.IntN(3), Repo: randString(r), Server: randString(r), Checksum: randString(r),
		Version: r.Int64() - r.Int64(), Complete: r.IntN(2) == 0}
	if r.IntN(2) == 0 {
		p.StoreID = randString(r)
	}
	if r.IntN(5) > 0 {
		p.Keys = map[string]Change{}
		for range r.IntN(20) {
			c := Change{Version: r.Int64() - r.Int64(), Subject: randString(r), Time: randTime(r), Deleted: r.IntN(2) == 0}
			if r.IntN(3) > 0 {
				c.Checksum = randString(r)
			}
			p.Keys[randString(r)] = c
		}
	}
	return p
}

func TestEncodeProvenanceRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	refused := 0
	for range 3000 {
		p := randProvenance(r)
		if _, err := json.Marshal(p); err != nil {
			refused++
		}
		sameProvenanceAsMarshal(t, p)
	}
	if refused == 0 {
		t.Errorf("no record had a time json.Marshal refuses; the comparison never covered one")
	}
}

func FuzzEncodeProvenance(f *testing.F) {
	f.Add("notes/a.md", "ann", "sha256:00", int64(7), int64(1700000000), int64(5), 3600, false)
	f.Add("<&>\"\\\u2028", "\xff\x00", "", int64(-1), int64(-1e12), int64(0), -1, true)
	f.Fuzz(func(t *testing.T, key, subject, sum string, version, sec, nsec int64, offset int, deleted bool) {
		c := Change{Version: version, Subject: subject, Time: time.Unix(sec, nsec).In(time.FixedZone("", offset)),
			Checksum: sum, Deleted: deleted}
		sameProvenanceAsMarshal(t, &Provenance{Format: provenanceFormat, Repo: key, Server: subject, Checksum: sum,
			Version: version, Keys: map[string]Change{key: c, sum: c}})
	})
}

// BenchmarkProvenanceEncode: the record of 2,000 notes, as both daemons
// of every save in such a repo write it.
func BenchmarkProvenanceEncode(b *testing.B) {
	p := &Provenance{Format: provenanceFormat, Repo: "bench/app", Server: "127.0.0.1:8080", StoreID: "s",
		Checksum: fmt.Sprintf("sha256:%064x", 1), Version: 4000, Complete: true, Keys: map[string]Change{}}
	at := time.Date(2026, 11, 30, 8, 0, 0, 123456789, time.UTC)
	for i := range 2000 {
		p.Keys[fmt.Sprintf("burst/f%05d.md", i)] = Change{Version: int64(2000 + i), Subject: "user:ann@example.com",
			Time: at.Add(time.Duration(i) * time.Millisecond), Checksum: fmt.Sprintf("sha256:%064x", i*7919)}
	}
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encodeProvenance", func(b *testing.B) {
		for b.Loop() {
			if _, err := encodeProvenance(p, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
