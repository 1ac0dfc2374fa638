package faulttest

import (
	"fmt"
	"testing"
	"time"
)

func TestDutyOf(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	// saveAt is a save of key that takes 1 ms from start.
	saveAt := func(key string, start int) save { return save{key: key, start: ms(start), end: ms(start + 1)} }
	always := []span{{ms(-1000), never}}
	tests := []struct {
		name  string
		saves []save
		up    []span
		want  bool
	}{
		{"last save of the key", []save{saveAt("a", 0), saveAt("b", 100)}, nil, true},
		{"overwritten within the debounce", []save{saveAt("a", 0), saveAt("a", 100)}, always, false},
		{"quiet past debounce and slack", []save{saveAt("a", 0), saveAt("a", 2500)}, always, true},
		{"quiet but just short of debounce and slack", []save{saveAt("a", 0), saveAt("a", 2200)}, always, false},
		{"quiet, but the daemon was down in the middle", []save{saveAt("a", 0), saveAt("a", 2500)},
			[]span{{ms(-1000), ms(500)}, {ms(2000), never}}, false},
		{"quiet while down, then up long enough", []save{saveAt("a", 0), saveAt("a", 5000)},
			[]span{{ms(-1000), ms(500)}, {ms(2000), never}}, true},
		{"split by another note's save", []save{saveAt("a", 0), saveAt("b", 1200), saveAt("a", 2500)}, always, false},
		{"busy, but on disk past max wait and slack", busy(ms, 3500), always, true},
		{"busy and the daemon down for a second", busy(ms, 3500), []span{{ms(-1000), ms(1000)}, {ms(2000), never}}, false},
		{"never up", []save{saveAt("a", 0), saveAt("a", 9000)}, nil, false},
		{"replaced by the daemon within the debounce", []save{saveAt("a", 0), {key: "a", overwrote: "sha256:pulled", start: ms(100), end: ms(101)}}, always, true},
	}
	tm := timing{debounce: 300 * time.Millisecond, maxWait: time.Second, slack: 2 * time.Second}
	show := labels{at: func(t time.Time) string { return fmt.Sprint(t.Sub(t0)) }, sum: func(s string) string { return s }}
	for _, tt := range tests {
		if got := dutyOf(tt.saves, 0, tt.up, tm, show); got.required != tt.want {
			t.Errorf("dutyOf(%s) = %v (%s), want %v", tt.name, got.required, got.why, tt.want)
		}
	}
}

// busy is a save of "a" at 0, saves of "b" every 200 ms, and the next
// save of "a" at life ms.
func busy(ms func(int) time.Time, life int) []save {
	out := []save{{key: "a", start: ms(0), end: ms(1)}}
	for at := 200; at < life; at += 200 {
		out = append(out, save{key: "b", start: ms(at), end: ms(at + 1)})
	}
	return append(out, save{key: "a", start: ms(life), end: ms(life + 1)})
}

func TestSpanIntersect(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := func(a, b int) span {
		return span{t0.Add(time.Duration(a) * time.Second), t0.Add(time.Duration(b) * time.Second)}
	}
	tests := []struct {
		a, b   span
		want   span
		wantOK bool
	}{
		{s(0, 10), s(5, 20), s(5, 10), true},
		{s(0, 10), s(2, 3), s(2, 3), true},
		{s(0, 10), s(10, 20), span{}, false},
		{s(5, 6), s(0, 1), span{}, false},
	}
	for _, tt := range tests {
		got, ok := tt.a.intersect(tt.b)
		if ok != tt.wantOK || (ok && got != tt.want) {
			t.Errorf("%v.intersect(%v) = %v, %v, want %v, %v", tt.a, tt.b, got, ok, tt.want, tt.wantOK)
		}
	}
}
