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
		got := m.answer(re, tt.kind, tt.text, count(tt.text))
		if got != tt.want || calls != tt.wantCalls {
			t.Errorf("answer(%.20q, kind %d) = %v after %d tests, want %v after %d", tt.text, tt.kind, got, calls, tt.want, tt.wantCalls)
		}
	}
}

// TestMatchMemoIsBounded fills the memo past a generation and checks that
// it holds at most two generations of answers, and that an answer of the
// older one is still given without a test.
func TestMatchMemoIsBounded(t *testing.T) {
	m := newMatchMemo()
	re := regexp.MustCompile(`x`)
	n := memoMaxEntries * 3 / 2
	for i := range n {
		m.answer(re, kindMatch, fmt.Sprint(i), func() bool { return i%2 == 0 })
	}
	if len(m.cur) > memoMaxEntries || len(m.old) > memoMaxEntries {
		t.Fatalf("memo holds %d + %d answers, want at most %d in each generation", len(m.cur), len(m.old), memoMaxEntries)
	}
	last := n - 1 - len(m.cur) // the newest answer of the older generation
	got := m.answer(re, kindMatch, fmt.Sprint(last), func() bool { t.Errorf("text %d of the older generation was tested again", last); return false })
	if want := last%2 == 0; got != want {
		t.Errorf("answer(text %d) = %v, want the kept %v", last, got, want)
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
