package scan

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestMatchMemoAnswers(t *testing.T) {
	m := newMatchMemo()
	re := regexp.MustCompile(`^key\s*=\s*\w+`)
	calls := 0
	count := func(text string) func() bool {
		return func() bool { calls++; return re.MatchString(text) }
	}
	long := "key = v" + strings.Repeat(" ", memoMaxText)
	tests := []struct {
		text      string
		kind      memoKind
		want      bool
		wantCalls int
	}{
		{"key = value", kindMatch, true, 1},
		{"key = value", kindMatch, true, 1},  // from the memo
		{"key = value", kindRegion, true, 2}, // another question
		{"no key here", kindMatch, false, 3}, // a miss is kept too
		{"no key here", kindMatch, false, 3}, // from the memo
		{long, kindMatch, true, 4},           // too long to keep
		{long, kindMatch, true, 5},           // tested again
		{"key = value", kindRegion | regionCutEnd, true, 6},
	}
	for _, tt := range tests {
		got := m.answer(memoKey{re: re, kind: tt.kind, text: tt.text}, count(tt.text))
		if got != tt.want || calls != tt.wantCalls {
			t.Errorf("answer(%.20q, kind %d) = %v after %d tests, want %v after %d", tt.text, tt.kind, got, calls, tt.want, tt.wantCalls)
		}
	}
}

// TestMatchMemoIsBounded fills the memo past a generation and checks that
// it holds at most two generations' text, and that a text of the older
// one is still answered without a test.
func TestMatchMemoIsBounded(t *testing.T) {
	m := newMatchMemo()
	re := regexp.MustCompile(`x`)
	text := func(i int) string { return fmt.Sprintf("%08d", i) + strings.Repeat("y", 1016) }
	n := 3 * memoMaxBytes / len(text(0)) / 2
	for i := range n {
		m.answer(memoKey{re: re, text: text(i)}, func() bool { return false })
	}
	held := 0
	for k := range m.old {
		held += len(k.text)
	}
	if m.curBytes > memoMaxBytes || held > memoMaxBytes {
		t.Fatalf("memo holds %d + %d bytes of text, want at most %d in each generation", m.curBytes, held, memoMaxBytes)
	}
	last := n - 1 - m.curBytes/len(text(0)) // the newest text of the older generation
	if m.answer(memoKey{re: re, text: text(last)}, func() bool { t.Errorf("text %d of the older generation was tested again", last); return false }) {
		t.Errorf("answer(text %d) = true, want the kept false", last)
	}
}

// TestMemoNeverHidesASecret scans clean notes, which fill the memo, then
// the same notes with a secret added among their lines, and wants the
// secret found each time.
func TestMemoNeverHidesASecret(t *testing.T) {
	s := newScanner(t, Config{})
	ctx := context.Background()
	clean := strings.Repeat("The deploy token for staging comes from the vault; never paste a password here.\n", 20)
	for i := range 3 {
		fs, err := s.File(ctx, "notes/deploy.md", []byte(fmt.Sprintf("rev %d\n%s", i, clean)))
		if err != nil || len(fs) != 0 {
			t.Fatalf("File(clean note %d) = %v, %v, want no findings", i, fs, err)
		}
	}
	for i := range 3 {
		note := fmt.Sprintf("rev %d\n%s%s%s", i+3, clean[:len(clean)/2], awsNote, clean[len(clean)/2:])
		fs, err := s.File(ctx, "notes/deploy.md", []byte(note))
		if err != nil || len(fs) == 0 {
			t.Errorf("File(note %d with a secret, after clean ones) = %v, %v, want a finding", i, fs, err)
		}
	}
}
