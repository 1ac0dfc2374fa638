package api

import (
	"errors"
	"maps"
	"testing"
)

func TestApplyChanges(t *testing.T) {
	heldSums := map[string]string{"a": EntryChecksum("a"), "b": EntryChecksum("b")}
	heldDel := map[string]int64{"c": 5}
	held := HashesResponse{Checksum: RepoChecksum(heldSums, heldDel), EntryChecksums: heldSums, DeletedEntries: heldDel}
	wantSums := map[string]string{"a": EntryChecksum("a2"), "c": EntryChecksum("c")}
	wantDel := map[string]int64{"b": 9}
	changes := HashesResponse{Checksum: RepoChecksum(wantSums, wantDel), ChangedSince: held.Checksum,
		EntryChecksums: map[string]string{"a": wantSums["a"], "c": wantSums["c"]}, DeletedEntries: map[string]int64{"b": 9}}

	got, err := changes.Apply(held)
	if err != nil {
		t.Fatal(err)
	}
	if got.ChangedSince != "" || !maps.Equal(got.EntryChecksums, wantSums) || !maps.Equal(got.DeletedEntries, wantDel) {
		t.Errorf("applied = %+v, want %v %v", got, wantSums, wantDel)
	}
	if len(held.EntryChecksums) != 2 || len(held.DeletedEntries) != 1 {
		t.Errorf("held was modified: %+v", held)
	}

	other := held
	other.Checksum = "sha256:other"
	if _, err := changes.Apply(other); err == nil {
		t.Error("changes since one checksum applied to hashes at another")
	}
	wrong := changes
	wrong.EntryChecksums = map[string]string{"a": wantSums["a"]}
	if _, err := wrong.Apply(held); !errors.Is(err, ErrChangesMismatch) {
		t.Errorf("changes that miss a key: err = %v, want ErrChangesMismatch", err)
	}
	whole := HashesResponse{Checksum: "sha256:x", EntryChecksums: map[string]string{"z": "s"}}
	if got, err := whole.Apply(held); err != nil || got.Checksum != whole.Checksum || len(got.EntryChecksums) != 1 {
		t.Errorf("a whole answer = %+v, %v; want it as it is", got, err)
	}
}
