package server_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// testSealer stands in for the client's encryption: opaque values and
// names, from keys only the test holds.
type testSealer struct {
	aead    cipher.AEAD
	nameKey []byte
}

func newTestSealer(t *testing.T) testSealer {
	t.Helper()
	key, nameKey := make([]byte, 32), make([]byte, 32)
	rand.Read(key)
	rand.Read(nameKey)
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	return testSealer{aead: aead, nameKey: nameKey}
}

// seal returns the wire key and value of a file at relPath holding
// content.
func (s testSealer) seal(relPath, content string) (string, string) {
	mac := hmac.New(sha256.New, s.nameKey)
	mac.Write([]byte(relPath))
	nonce := make([]byte, s.aead.NonceSize())
	rand.Read(nonce)
	sealed := s.aead.Seal(nonce, nonce, []byte(relPath+"\n\n"+content), nil)
	return hex.EncodeToString(mac.Sum(nil)) + ".age", base64.StdEncoding.EncodeToString(sealed)
}

// writeSealedLane seals files holding marker in their paths and contents,
// writes them to a lane of token's subject, replaces one and deletes
// another, and returns every wire value sent.
func writeSealedLane(t *testing.T, base, token, marker string) []string {
	t.Helper()
	sealer := newTestSealer(t)
	initKey(t, base, token, keyOne)
	entries := map[string]string{}
	var sent []string
	for _, f := range []string{"notes/" + marker + ".md", "MEMORY.md", "user_" + marker + ".md"} {
		k, v := sealer.seal(f, "# "+marker+"\nremember "+marker+" always\n")
		entries[k] = v
		sent = append(sent, v)
	}
	putLane(t, base, token, laneOne, keyOne, entries)
	k, v := sealer.seal("MEMORY.md", "replaced, still "+marker)
	sent = append(sent, v)
	gone, _ := sealer.seal("notes/"+marker+".md", "")
	putLane(t, base, token, laneOne, keyOne, map[string]string{k: v}, gone)
	return sent
}

// writeControl writes control in the clear to a team repo: the byte
// search must find it, or it searched the wrong bytes.
func writeControl(t *testing.T, base, token, control string) {
	t.Helper()
	r := do(t, base, req{method: http.MethodPut, repo: "acme/app", token: token,
		body: putBody(t, map[string]string{"control.md": "in the clear: " + control})})
	if r.status != http.StatusOK {
		t.Fatalf("PUT control = %d %s", r.status, r.body)
	}
}

// checkStoredBytes checks what the database holds: every sealed value and
// the control, never the marker.
func checkStoredBytes(t *testing.T, where string, stored []byte, marker, control string, sent []string) {
	t.Helper()
	if !bytes.Contains(stored, []byte(control)) {
		t.Fatalf("%s does not hold the control marker written in the clear: the search reads the wrong bytes", where)
	}
	for _, v := range sent {
		if !bytes.Contains(stored, []byte(v)) {
			t.Errorf("%s does not hold the sealed value %.20s... as sent", where, v)
		}
	}
	if bytes.Contains(stored, []byte(marker)) {
		t.Errorf("%s holds the client-side plaintext marker %s", where, marker)
	}
}

// TestClientPlaintextNeverReachesSQLiteFiles writes a lane of sealed files
// whose plaintext paths and contents hold a marker through HTTP, then
// reads the database, its write-ahead log and shared-memory file as bytes:
// they hold the sealed values as sent and never the marker.
func TestClientPlaintextNeverReachesSQLiteFiles(t *testing.T) {
	s := servertest.Start(t)
	marker, control := "PLAINTEXT-MARKER-"+rand.Text(), "CONTROL-MARKER-"+rand.Text()
	sent := writeSealedLane(t, s.URL, s.CreateToken(t, "alice"), marker)
	writeControl(t, s.URL, s.Token, control)
	checkStoredBytes(t, "the SQLite files", servertest.FileBytes(t, s.Path), marker, control, sent)
}

// TestClientPlaintextNeverReachesPostgresTables does the same on a
// PostgreSQL store, reading every table's bytes through SQL.
func TestClientPlaintextNeverReachesPostgresTables(t *testing.T) {
	s := servertest.StartPostgres(t, pgtest.Schema(t))
	marker, control := "PLAINTEXT-MARKER-"+rand.Text(), "CONTROL-MARKER-"+rand.Text()
	sent := writeSealedLane(t, s.URL, s.CreateToken(t, "alice"), marker)
	writeControl(t, s.URL, s.Token, control)
	checkStoredBytes(t, "the PostgreSQL tables", servertest.TableBytes(t, s.DBURL), marker, control, sent)
}
