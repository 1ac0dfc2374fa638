package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/teammemd/teammemd/server/api"
)

// putBodies are bodies of every form: the common ones the one-pass decode
// takes, and ones it leaves to api.ReadPut.
var putBodies = []string{
	`{"entries":{"a.md":"a"}}`,
	` {"entries" : {"a.md" : "a\n\"b\"\\\/\b\f\r\t\u00e9\u0000x", "b/c.md":""} } `,
	`{"entries":{"a.md":"a","b/c.md":"c"},"soft_delete_keys":["x.md","y/z.md"]}`,
	`{"soft_delete_keys":[],"entries":{}}`,
	`{}`,
	`{"entries":{"a.md":"é ☃ 😀"}}`,
	`{"entries":{"a\u002emd":"x"}}`,
	`{"entries":{"a.md":"\ud83d\ude00"}}`,
	`{"entries":{"a.md":"\ud800"}}`,
	`{"entries":{"a.md":"\udc00x"}}`,
	"{\"entries\":{\"a.md\":\"\xff\"}}",
	"{\"entries\":{\"a.md\":\"a\x01\"}}",
	`{"Entries":{"a.md":"a"}}`,
	`{"entries":{"a.md":"a"},"other":[1,{"x":null}]}`,
	`{"entries":{"a.md":"a"},"other":1E700}`,
	`{"entries":{"a.md":1E700}}`,
	`1E700`,
	`{"entries":{"a.md":"a"},"entries":{"b.md":"b"}}`,
	`{"entries":{"a.md":"a","a.md":"b"}}`,
	`{"entries":{"a.md":null}}`,
	`{"entries":{"a.md":1}}`,
	`{"entries":null}`,
	`{"entries":{"../x":"a"}}`,
	`{"entries":{"a.md":"a"},"soft_delete_keys":["a.md"]}`,
	`{"soft_delete_keys":["a.md",1]}`,
	`{"entries":{"a.md":"a"}} {}`,
	`{"entries":{"a.md":"a"},}`,
	`{"entries":{"a.md":"a"`,
	`{"entries":{"a.md":"a\`,
	`{"entries":{"a.md":"\x"}}`,
	`{"entries":{"a.md":"\u12"}}`,
	`null`,
	`[]`,
	``,
	`{"entries":{"a.md":"` + strings.Repeat("x", 1001) + `"}}`,
	`{"entries":{` + strings.Repeat(`"k.md":"v",`, 3) + `"z.md":"v"}}`,
}

// The one-pass decode of a body gives what api.ReadPut gives: the same
// request, or the same refusal.
func TestDecodePutAgreesWithReadPut(t *testing.T) {
	lim := api.Limits{MaxEntries: 50, MaxEntryBytes: 1000, MaxBodyBytes: 1 << 20}
	many := `{"entries":{`
	for i := range 51 {
		many += fmt.Sprintf(`"k%d.md":"v",`, i)
	}
	bodies := append(slices.Clone(putBodies), strings.TrimSuffix(many, ",")+`}}`)
	for _, body := range bodies {
		checkDecodePut(t, body, lim)
	}
}

// A body longer than the one-pass decode reads whole is decoded as it
// arrives, with the same answer.
func TestDecodePutLongBody(t *testing.T) {
	lim := api.DefaultLimits()
	var b strings.Builder
	b.WriteString(`{"entries":{`)
	n := 0
	for ; b.Len() < maxFastBody+1000; n++ {
		if n > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d.md":"%s\n"`, n, strings.Repeat("v", 1000))
	}
	b.WriteString(`}}`)
	checkDecodePut(t, b.String(), lim)
	req, err := decodePut(iotest.OneByteReader(strings.NewReader(b.String())), lim)
	if err != nil || len(req.Entries) != n {
		t.Errorf("decodePut(long body, one byte at a time) = %d entries, %v, want %d, nil", len(req.Entries), err, n)
	}
}

// An error of the body's reader is the decode's error, wrapped.
func TestDecodePutReadError(t *testing.T) {
	broken := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(`{"entries":{"a.md":"a`), iotest.ErrReader(broken))
	if _, err := decodePut(r, api.DefaultLimits()); !errors.Is(err, broken) {
		t.Errorf("decodePut(reader failing mid-body) = %v, want %v", err, broken)
	}
}

func FuzzDecodePut(f *testing.F) {
	for _, b := range putBodies {
		f.Add(b)
	}
	lim := api.Limits{MaxEntries: 5, MaxEntryBytes: 100, MaxBodyBytes: 4000}
	f.Fuzz(func(t *testing.T, body string) { checkDecodePut(t, body, lim) })
}

func checkDecodePut(t *testing.T, body string, lim api.Limits) {
	t.Helper()
	got, gotErr := decodePut(strings.NewReader(body), lim)
	want, wantErr := api.ReadPut(bytes.NewReader([]byte(body)), lim)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("decodePut(%.80q) error = %v, want %v", body, gotErr, wantErr)
	}
	var gotAPI, wantAPI *api.Error
	if errors.As(gotErr, &gotAPI) != errors.As(wantErr, &wantAPI) ||
		(gotAPI != nil && (gotAPI.Status != wantAPI.Status || gotAPI.Code != wantAPI.Code || fmt.Sprint(gotAPI.Details) != fmt.Sprint(wantAPI.Details))) {
		t.Fatalf("decodePut(%.80q) error = %#v, want %#v", body, gotAPI, wantAPI)
	}
	if !maps.Equal(got.Entries, want.Entries) || !slices.Equal(got.SoftDeleteKeys, want.SoftDeleteKeys) ||
		(got.Entries == nil) != (want.Entries == nil) || (got.SoftDeleteKeys == nil) != (want.SoftDeleteKeys == nil) {
		t.Fatalf("decodePut(%.80q) = %q, %q, want %q, %q", body, got.Entries, got.SoftDeleteKeys, want.Entries, want.SoftDeleteKeys)
	}
}

// BenchmarkDecodePut decodes a single-entry PUT of 4 KB of note text, as
// the daemon sends one: through api.ReadPut alone, and through decodePut.
func BenchmarkDecodePut(b *testing.B) {
	var note strings.Builder
	for i := 0; note.Len() < 4096; i++ {
		fmt.Fprintf(&note, "- step %d: run `go test ./server/...` in /srv/app, then \"check\" the token and key paths\n", i)
	}
	body, err := json.Marshal(api.PutRequest{Entries: map[string]string{"notes/build.md": note.String()}})
	if err != nil {
		b.Fatal(err)
	}
	lim := api.DefaultLimits()
	for _, c := range []struct {
		name   string
		decode func(io.Reader, api.Limits) (api.PutRequest, error)
	}{{"ReadPut", api.ReadPut}, {"decodePut", decodePut}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.decode(bytes.NewReader(body), lim); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
