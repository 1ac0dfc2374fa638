package teamindex

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// notes makes n notes, the newest first, a minute apart, each with a
// description of descLen runes.
func notes(n, descLen int, now time.Time) []Note {
	out := make([]Note, n)
	for i := range out {
		out[i] = Note{Key: fmt.Sprintf("notes/n%04d.md", i), Name: fmt.Sprintf("note %d", i),
			Description: strings.Repeat("d", descLen), Changed: now.Add(-time.Duration(i) * time.Minute), By: "ann"}
	}
	return out
}

// TestRenderCaps: however many notes, the index stays within MaxLines
// lines and MaxBytes bytes; the notes it lists are the newest, in order,
// and the line after them counts the rest.
func TestRenderCaps(t *testing.T) {
	now := time.Now()
	dir := "/home/ann/.claude/projects/-home-ann-src-app/memory/team"
	tests := []struct {
		name      string
		idx       Index
		wantShown int
	}{
		{"no notes", Index{Repo: "acme/app", Dir: dir}, 0},
		{"a few notes", Index{Repo: "acme/app", Dir: dir, Notes: notes(12, 40, now), Unshared: 2}, 12},
		{"a few notes, some for review", Index{Repo: "acme/app", Dir: dir, Notes: notes(12, 40, now), Unshared: 2, PendingReview: 2}, 12},
		{"exactly as many as fit, one for review", Index{Repo: "acme/app", Dir: dir, Notes: notes(197, 10, now), PendingReview: 1}, 195},
		{"1,000 short notes, cut by lines", Index{Repo: "acme/app", Dir: dir, Notes: notes(1000, 10, now), HasIndexNote: true, Unshared: 3}, 194},
		{"1,000 long notes, cut by bytes", Index{Repo: "acme/app", Dir: dir, Notes: notes(1000, 400, now)}, -1},
		{"exactly as many as fit", Index{Repo: "acme/app", Dir: dir, Notes: notes(197, 10, now)}, 197},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := Render(&b, tt.idx, now); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) > MaxLines || len(out) > MaxBytes {
			t.Errorf("%s: index = %d lines, %d bytes, want at most %d and %d", tt.name, len(lines), len(out), MaxLines, MaxBytes)
		}
		shown, cut := 0, 0
		for _, l := range lines {
			if strings.HasPrefix(l, "- ") {
				if want := noteLine(tt.idx.Notes[shown], now); l != want {
					t.Errorf("%s: note line %d = %q, want %q", tt.name, shown, l, want)
				}
				shown++
			}
			if strings.Contains(l, "older note") {
				if _, err := fmt.Sscanf(l, "%d", &cut); err != nil {
					t.Errorf("%s: cut line %q has no count", tt.name, l)
				}
				if !strings.Contains(l, dir) {
					t.Errorf("%s: cut line %q, want it to name %s", tt.name, l, dir)
				}
			}
		}
		if shown+cut != len(tt.idx.Notes) || (tt.wantShown >= 0 && shown != tt.wantShown) {
			t.Errorf("%s: %d notes shown and %d counted as cut, want %d shown of %d", tt.name, shown, cut, tt.wantShown, len(tt.idx.Notes))
		}
		if got := strings.Contains(out, "no notes yet"); got != (len(tt.idx.Notes) == 0) {
			t.Errorf("%s: index says there are no notes = %v, want %v", tt.name, got, len(tt.idx.Notes) == 0)
		}
		if got := strings.Contains(out, "local note"); got != (tt.idx.Unshared > 0) {
			t.Errorf("%s: index counts local notes = %v, want %v", tt.name, got, tt.idx.Unshared > 0)
		}
		if got := strings.Contains(out, "for review: the team gets"); got != (tt.idx.PendingReview > 0) {
			t.Errorf("%s: index counts changes waiting for review = %v, want %v", tt.name, got, tt.idx.PendingReview > 0)
		}
	}
}

// TestRenderByteCap: a cut by bytes fills the index to within one note
// line of MaxBytes.
func TestRenderByteCap(t *testing.T) {
	now := time.Now()
	idx := Index{Repo: "acme/app", Dir: "/t/team", Notes: notes(1000, 400, now)}
	var b strings.Builder
	if err := Render(&b, idx, now); err != nil {
		t.Fatal(err)
	}
	if n, line := b.Len(), len(noteLine(idx.Notes[0], now))+1; n > MaxBytes || n < MaxBytes-line {
		t.Errorf("index cut by bytes = %d bytes, want between %d and %d", n, MaxBytes-line, MaxBytes)
	}
}

func TestNoteLine(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		n    Note
		want string
	}{
		{Note{Key: "a.md", Name: "A", Description: "what a is", Changed: now.Add(-90 * time.Minute), By: "ann"}, "- a.md: A - what a is (changed by ann 1 hour ago)"},
		{Note{Key: "a.md", Description: "only a description", Changed: now.Add(-3 * 24 * time.Hour)}, "- a.md: only a description (local change 3 days ago)"},
		{Note{Key: "a.md", Name: "only a name", Changed: now.Add(-time.Second)}, "- a.md: only a name (local change just now)"},
		{Note{Key: "sub/a.md", Changed: now.Add(-2 * time.Minute), By: "bob"}, "- sub/a.md (changed by bob 2 minutes ago)"},
		{Note{Key: "a.md", Name: "A", Description: "two\nlines\tand\x07a bell", Changed: now.Add(time.Hour), By: "x\ny"}, "- a.md: A - two lines and a bell (changed by x y just now)"},
		{Note{Key: "a.md", Name: "A", Description: ">-", Changed: now}, "- a.md: A (local change just now)"},
	}
	for _, tt := range tests {
		if got := noteLine(tt.n, now); got != tt.want {
			t.Errorf("noteLine(%+v) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"plain", 10, "plain"},
		{"  spaced \n out\r\n ", 20, "spaced out"},
		{"ctrl\x1b[31mred", 20, "ctrl [31mred"},
		{"bad \xff utf8", 20, "bad \uFFFD utf8"},
		{"|", 10, ""},
		{">+2", 10, ""},
		{"> not a block indicator", 30, "> not a block indicator"},
		{"-", 10, "-"},
		{"abcdefghij", 5, "abcd…"},
		{"ééééé", 3, "éé…"},
	}
	for _, tt := range tests {
		got := oneLine(tt.in, tt.max)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("oneLine(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestAgo(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Hour, "just now"},
		{59 * time.Second, "just now"},
		{time.Minute, "1 minute ago"},
		{59 * time.Minute, "59 minutes ago"},
		{time.Hour, "1 hour ago"},
		{47 * time.Hour, "47 hours ago"},
		{48 * time.Hour, "2 days ago"},
		{400 * 24 * time.Hour, "400 days ago"},
	}
	for _, tt := range tests {
		if got := ago(now.Add(-tt.d), now); got != tt.want {
			t.Errorf("ago(%v before now) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"plain", "two\nlines", "bad \xff utf8", ">-", "ééééé"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 1 || max > 1000 {
			return
		}
		got := oneLine(s, max)
		if !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r") || utf8.RuneCountInString(got) > max {
			t.Errorf("oneLine(%q, %d) = %q, want one line of valid UTF-8 of at most %d runes", s, max, got, max)
		}
	})
}
