package linearizetest

import (
	"net/http"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

func TestStep(t *testing.T) {
	a1, a2, b1 := api.EntryChecksum("a1"), api.EntryChecksum("a2"), api.EntryChecksum("b1")
	v1 := state{version: 1, sums: [nKeys]string{a1}, checksum: repoChecksum([nKeys]string{a1}, [nKeys]bool{})}
	v2 := state{version: 2, sums: [nKeys]string{a1, b1}, checksum: repoChecksum([nKeys]string{a1, b1}, [nKeys]bool{})}
	v3 := state{version: 3, sums: [nKeys]string{"", b1}, deleted: [nKeys]bool{true}, checksum: repoChecksum([nKeys]string{"", b1}, [nKeys]bool{true})}
	put := func(ifMatch string, sets [nKeys]string, deletes [nKeys]bool) input {
		return input{repo: "r", op: opPut, ifMatch: ifMatch, sets: sets, deletes: deletes}
	}
	read := func(op string) input { return input{repo: "r", op: op} }
	ok := func(s state) output {
		return output{status: http.StatusOK, version: s.version, checksum: s.checksum, sums: s.sums, deleted: s.deleted}
	}
	tests := []struct {
		name      string
		from      state
		in        input
		out       output
		legal     bool
		wantState state
	}{
		{"get on a repo never written is 404", initial(), read(opGet), output{status: http.StatusNotFound}, true, initial()},
		{"get on a repo never written is not 200", initial(), read(opGet), ok(initial()), false, initial()},
		{"hashes see the state", v2, read(opHashes), ok(v2), true, v2},
		{"hashes see an old state", v2, read(opHashes), ok(v1), false, v2},
		{"first put with the empty checksum", initial(), put(api.EmptyRepoChecksum, [nKeys]string{a1}, [nKeys]bool{}), output{status: 200, version: 1, checksum: v1.checksum}, true, v1},
		{"put with a stale If-Match is 412", v2, put(v1.checksum, [nKeys]string{a2}, [nKeys]bool{}), output{status: http.StatusPreconditionFailed}, true, v2},
		{"put with a stale If-Match accepted", v2, put(v1.checksum, [nKeys]string{a2}, [nKeys]bool{}), output{status: 200, version: 3}, false, v2},
		{"put with the current If-Match refused", v2, put(v2.checksum, [nKeys]string{a2}, [nKeys]bool{}), output{status: http.StatusPreconditionFailed}, false, v2},
		{"merge keeps the other keys", v1, put(v1.checksum, [nKeys]string{"", b1}, [nKeys]bool{}), output{status: 200, version: 2, checksum: v2.checksum}, true, v2},
		{"soft delete leaves a tombstone", v2, put(v2.checksum, [nKeys]string{}, [nKeys]bool{true}), output{status: 200, version: 3, checksum: v3.checksum}, true, v3},
		{"a put that changes nothing keeps the version", v2, put(v2.checksum, [nKeys]string{a1}, [nKeys]bool{}), output{status: 200, version: 2, checksum: v2.checksum}, true, v2},
		{"a put that changes nothing must not bump it", v2, put(v2.checksum, [nKeys]string{a1}, [nKeys]bool{}), output{status: 200, version: 3, checksum: v2.checksum}, false, v2},
		{"deleting a tombstone changes nothing", v3, put("", [nKeys]string{}, [nKeys]bool{true}), output{status: 200, version: 3, checksum: v3.checksum}, true, v3},
	}
	for _, tt := range tests {
		legal, got := step(tt.from, tt.in, tt.out)
		if legal != tt.legal || (legal && got != tt.wantState) {
			t.Errorf("step(%s) = %v, %+v, want %v, %+v", tt.name, legal, got, tt.legal, tt.wantState)
		}
	}
}
