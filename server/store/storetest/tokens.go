package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// TokensOpener returns a fresh token store for one subtest and arranges,
// with t.Cleanup, for it to be closed.
type TokensOpener func(t *testing.T) store.Tokens

// RunTokens runs every Tokens conformance test, each on a fresh store.
func RunTokens(t *testing.T, open TokensOpener) {
	runEach(t, open, []subtest[store.Tokens]{
		{"CreateAndFind", testCreateAndFind},
		{"Unknown", testUnknownToken},
		{"List", testListTokens},
		{"Revoke", testRevokeToken},
		{"Duplicate", testDuplicateToken},
		{"Counts", testTokenCounts},
	})
}

func token(id string, n int) store.Token {
	return store.Token{
		ID:      id,
		Subject: "subject-" + id,
		Hash:    "hash-" + id,
		Grants: []store.Grant{
			{Pattern: "acme/*", Level: store.LevelWrite},
			{Pattern: "acme/**", Level: store.LevelRead},
		},
		CreatedAt: at(n),
	}
}

func create(t *testing.T, s store.Tokens, tok store.Token) {
	t.Helper()
	if err := s.CreateToken(context.Background(), tok); err != nil {
		t.Fatalf("CreateToken(%s) error = %v", tok.ID, err)
	}
}

func sameToken(a, b store.Token) bool {
	return a.ID == b.ID && a.Subject == b.Subject && a.Hash == b.Hash && slices.Equal(a.Grants, b.Grants) &&
		a.CreatedAt.Equal(b.CreatedAt) && a.RevokedAt.Equal(b.RevokedAt)
}

func testCreateAndFind(t *testing.T, s store.Tokens) {
	want := token("t1", 1)
	create(t, s, want)
	create(t, s, token("t2", 2))
	got, err := s.TokenByHash(context.Background(), want.Hash)
	if err != nil {
		t.Fatalf("TokenByHash(%s) error = %v", want.Hash, err)
	}
	if !sameToken(got, want) {
		t.Errorf("TokenByHash(%s) = %+v, want %+v", want.Hash, got, want)
	}
}

func testUnknownToken(t *testing.T, s store.Tokens) {
	create(t, s, token("t1", 1))
	for _, hash := range []string{"", "hash-t2", "HASH-T1", "hash-t1 "} {
		_, err := s.TokenByHash(context.Background(), hash)
		wantErr(t, "TokenByHash("+hash+")", err, store.ErrTokenNotFound)
	}
}

func testListTokens(t *testing.T, s store.Tokens) {
	got, err := s.ListTokens(context.Background())
	if err != nil || len(got) != 0 {
		t.Fatalf("ListTokens(empty) = %d tokens, %v, want 0, nil", len(got), err)
	}
	want := []store.Token{token("b", 1), token("a", 2), token("c", 3)}
	for _, tok := range want {
		create(t, s, tok)
	}
	got, err = s.ListTokens(context.Background())
	if err != nil {
		t.Fatalf("ListTokens() error = %v", err)
	}
	if !slices.EqualFunc(got, want, sameToken) {
		t.Errorf("ListTokens() = %+v, want %+v oldest first", got, want)
	}
}

func testRevokeToken(t *testing.T, s store.Tokens) {
	ctx := context.Background()
	tok := token("t1", 1)
	create(t, s, tok)
	create(t, s, token("t2", 2))
	revokedAt := at(10)
	if err := s.RevokeToken(ctx, "t1", revokedAt); err != nil {
		t.Fatalf("RevokeToken(t1) error = %v", err)
	}
	_, err := s.TokenByHash(ctx, tok.Hash)
	wantErr(t, "TokenByHash(revoked)", err, store.ErrTokenNotFound)
	if _, err := s.TokenByHash(ctx, "hash-t2"); err != nil {
		t.Errorf("TokenByHash(t2) error = %v after revoking t1, want nil", err)
	}
	if err := s.RevokeToken(ctx, "t1", at(20)); err != nil {
		t.Errorf("RevokeToken(t1 again) error = %v, want nil", err)
	}
	wantErr(t, "RevokeToken(unknown)", s.RevokeToken(ctx, "nope", at(10)), store.ErrTokenNotFound)
	list, err := s.ListTokens(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("ListTokens() = %d tokens, %v, want 2, nil", len(list), err)
	}
	if !list[0].RevokedAt.Equal(revokedAt) || !list[1].RevokedAt.IsZero() {
		t.Errorf("ListTokens() revoked = %v, %v, want %v, zero", list[0].RevokedAt, list[1].RevokedAt, revokedAt)
	}
}

func testDuplicateToken(t *testing.T, s store.Tokens) {
	ctx := context.Background()
	create(t, s, token("t1", 1))
	dupID := token("t1", 2)
	dupID.Hash = "other"
	if err := s.CreateToken(ctx, dupID); err == nil {
		t.Errorf("CreateToken(duplicate id) error = nil, want an error")
	}
	dupHash := token("t2", 2)
	dupHash.Hash = "hash-t1"
	if err := s.CreateToken(ctx, dupHash); err == nil {
		t.Errorf("CreateToken(duplicate hash) error = nil, want an error")
	}
	if list, err := s.ListTokens(ctx); err != nil || len(list) != 1 {
		t.Errorf("ListTokens() = %d tokens, %v, want 1, nil", len(list), err)
	}
}

func testTokenCounts(t *testing.T, s store.Tokens) {
	ctx := context.Background()
	want := func(step string, tokens, revoked int64) {
		t.Helper()
		got, err := s.TokenCounts(ctx)
		if err != nil || got != (store.TokenCounts{Tokens: tokens, Revoked: revoked}) {
			t.Errorf("TokenCounts(%s) = %+v, %v, want %d tokens, %d revoked", step, got, err, tokens, revoked)
		}
	}
	want("empty", 0, 0)
	create(t, s, token("t1", 1))
	create(t, s, token("t2", 2))
	want("two tokens", 2, 0)
	if err := s.RevokeToken(ctx, "t2", at(10)); err != nil {
		t.Fatalf("RevokeToken(t2) error = %v", err)
	}
	want("one revoked", 2, 1)
	if err := s.RevokeToken(ctx, "t2", at(20)); err != nil {
		t.Fatalf("RevokeToken(t2 again) error = %v", err)
	}
	want("revoked again", 2, 1)
}
