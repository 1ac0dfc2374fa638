package teamindex

import (
	"context"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestReadInput(t *testing.T) {
	tests := []struct {
		name, in, wantCwd string
	}{
		{"SessionStart input", `{"session_id":"s1","transcript_path":"/t/s1.jsonl","cwd":"/home/ann/src/app","hook_event_name":"SessionStart","source":"startup"}`, "/home/ann/src/app"},
		{"input left open after the object", `{"cwd":"/src/app"}` + "\n" + `{"more`, "/src/app"},
		{"no input", "", ""},
		{"not JSON", "cwd=/src/app", ""},
		{"not an object", `["/src/app"]`, ""},
		{"a cwd of another type", `{"cwd":7}`, ""},
		{"a relative cwd", `{"cwd":"src/app"}`, ""},
		{"over the size bound", `{"pad":"` + strings.Repeat("x", MaxInput) + `","cwd":"/src/app"}`, ""},
	}
	for _, tt := range tests {
		got := ReadInput(context.Background(), strings.NewReader(tt.in), time.Minute)
		if got.Cwd != tt.wantCwd {
			t.Errorf("ReadInput(%s) cwd = %q, want %q", tt.name, got.Cwd, tt.wantCwd)
		}
	}
	got := ReadInput(context.Background(), strings.NewReader(tests[0].in), time.Minute)
	if got.SessionID != "s1" || got.HookEventName != "SessionStart" || got.Source != "startup" {
		t.Errorf("ReadInput(SessionStart input) = %+v, want its session, event and source", got)
	}
}

// TestReadInputWaitsBounded: input that never comes is waited for until
// the wait ends, or the context, not longer.
func TestReadInputWaitsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, w := io.Pipe()
		defer w.Close()
		start := time.Now()
		if got := ReadInput(context.Background(), r, 2*time.Second); got != (Input{}) || time.Since(start) != 2*time.Second {
			t.Errorf("ReadInput(silent stdin) = %+v after %v, want nothing after 2s", got, time.Since(start))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start = time.Now()
		if got := ReadInput(ctx, r, time.Hour); got != (Input{}) || time.Since(start) != time.Second {
			t.Errorf("ReadInput(silent stdin, context ending) = %+v after %v, want nothing after 1s", got, time.Since(start))
		}
	})
}

func FuzzReadInput(f *testing.F) {
	f.Add(`{"session_id":"s1","cwd":"/home/ann/src/app","hook_event_name":"SessionStart","source":"startup"}`)
	f.Add(`{"cwd":"src/app"}`)
	f.Add(`{"cwd":7}`)
	f.Add(`[`)
	f.Fuzz(func(t *testing.T, in string) {
		got := ReadInput(context.Background(), strings.NewReader(in), time.Minute)
		if got.Cwd != "" && !strings.HasPrefix(got.Cwd, "/") {
			t.Errorf("ReadInput(%q) cwd = %q, want absolute or none", in, got.Cwd)
		}
	})
}
