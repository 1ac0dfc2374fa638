package postgres

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// securityChapter is the chapter that gives the steps after a purge.
var securityChapter = filepath.Join("..", "..", "..", "docs", "10-security.md")

// The security chapter gives the statements TestPurgedBytesGoWithTheDocumentedSteps
// runs after a purge, under the heading the purge's residue names. This
// test needs no PostgreSQL, so the chapter is checked on every run.
func TestSecurityChapterGivesThePurgeSteps(t *testing.T) {
	data, err := os.ReadFile(securityChapter)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, step := range []string{"psql \"$STORE\" -c '" + VacuumPurged + "'", "-c 'CHECKPOINT'"} {
		if !strings.Contains(text, step) {
			t.Errorf("%s does not give the step %s", securityChapter, step)
		}
	}
	const heading = "Purging a leaked secret"
	if !strings.Contains(purgeResidue, "docs/10-security.md: "+heading) || !strings.Contains(text, "\n## "+heading) {
		t.Errorf("the purge residue %q and %s do not name the same section %q", purgeResidue, securityChapter, heading)
	}
}
