package server

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

// FuzzPersonalKey sends arbitrary bodies and preconditions to PUT on the
// personal key through the real handler and store. A request is either
// refused with a 4xx, leaving the key as it was, or stores a key that GET
// then answers with: a valid key ID and an envelope of printable ASCII
// within the bound.
func FuzzPersonalKey(f *testing.F) {
	const id = "0123456789abcdef0123456789abcdef"
	for _, seed := range []struct{ body, inm, im string }{
		{`{"keyId":"` + id + `","envelope":"armor\n"}`, "*", ""},
		{`{"keyId":"` + id + `","envelope":"armor"}`, "", `"` + id + `"`},
		{`{"keyId":"` + id + `","envelope":""}`, "*", ""},
		{`{"keyId":"ABC","envelope":"e"}`, "*", ""},
		{`{"keyId":"` + id + `","envelope":"\u00e9"}`, "*", ""},
		{`{"keyId":"` + id + `","envelope":"e","x":1}`, "*", ""},
		{`{"keyId":`, "*", ""},
		{`[]`, "", ""},
		{`{"keyId":"` + id + `","envelope":"e"}`, "W/\"x\"", `"` + id + `"`},
	} {
		f.Add(seed.body, seed.inm, seed.im)
	}
	s, tok := newInternal(f, Config{RateLimit: RateLimit{RequestsPerSecond: -1}}, Options{})
	f.Fuzz(func(t *testing.T, body, inm, im string) {
		before := call(s, tok, http.MethodGet, api.PersonalKeyPath, "")
		w := call(s, tok, http.MethodPut, api.PersonalKeyPath, body, "If-None-Match", inm, "If-Match", im)
		after := call(s, tok, http.MethodGet, api.PersonalKeyPath, "")
		switch {
		case w.Code == http.StatusOK:
			var env api.KeyEnvelope
			if err := json.Unmarshal(after.Body.Bytes(), &env); err != nil || after.Code != http.StatusOK {
				t.Fatalf("GET key after a stored PUT = %d %s", after.Code, after.Body)
			}
			if !api.ValidKeyID(env.KeyID) || env.Envelope == "" || len(env.Envelope) > api.MaxEnvelopeBytes || !asciiText(env.Envelope) {
				t.Fatalf("stored key %+v is not a valid key", env)
			}
		case w.Code >= 400 && w.Code < 500:
			if after.Code != before.Code || after.Body.String() != before.Body.String() {
				t.Fatalf("refused PUT (%d) changed the key: %s -> %s", w.Code, before.Body, after.Body)
			}
		default:
			t.Fatalf("PUT key %q = %d %s, want 200 or 4xx", body, w.Code, w.Body)
		}
	})
}
