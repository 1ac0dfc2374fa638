package faulttest

import (
	"os"
	"testing"

	"github.com/teammemd/teammemd/internal/proclab/labtest"
)

// TestMain removes the teammemd the tests built once they have run.
func TestMain(m *testing.M) { labtest.Main(m) }

// labDir is t.TempDir(), or with TEAMMEMD_PROOF_KEEP=1 a directory that
// outlives the test, for its logs, state and team directories.
func labDir(t *testing.T) string {
	t.Helper()
	if os.Getenv("TEAMMEMD_PROOF_KEEP") != "1" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "teammemd-proof-")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("keeping the lab in %s", dir)
	return dir
}
