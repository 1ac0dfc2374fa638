package crashtest

import (
	"testing"

	"github.com/teammemd/teammemd/internal/proclab/labtest"
)

// TestMain removes the teammemd the tests built once they have run.
func TestMain(m *testing.M) { labtest.Main(m) }
