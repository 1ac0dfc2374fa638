package memsync

import (
	"encoding/json"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

// The state file's names are a file format: a daemon reads the file an
// older or newer build wrote. A name that changes loses what the field
// held, silently (the index's: every file hashed again).
func TestStateFileNames(t *testing.T) {
	a, r := api.EntryChecksum("a"), api.EntryChecksum("r")
	want := `{"format":1,"repo":"acme/app","server":"h:1",` +
		`"lastKnownChecksum":"` + api.EmptyRepoChecksum + `","lastKnownVersion":7,` +
		`"storeId":"0123456789abcdef0123456789abcdef",` +
		`"serverChecksums":{"a.md":"` + a + `"},"base":{"a.md":"` + a + `"},"serverMaxEntries":10,` +
		`"tombstones":{"gone.md":1},` +
		`"rejected":{"r.md":{"checksum":"` + r + `","code":"c","message":"m"}},` +
		`"review":{"p.md":{"proposal":1,"state":"pending"}},` +
		`"heldDeletions":["h.md"],` +
		`"conflicts":[{"key":"a.md","path":"/x","source":"local","time":"1970-01-01T00:00:01Z"}],` +
		`"index":{"a.md":{"size":1,"mtimeNs":2,"inode":3,"hash":"` + a + `"}},` +
		`"pullAgain":true}`
	got, err := json.Marshal(fullState())
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("state file:\n got %s\nwant %s", got, want)
	}
}
