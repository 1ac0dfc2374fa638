package teamindex

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"time"
)

// MaxInput bounds how much of a hook's input is read.
const MaxInput = 1 << 20

// Input is the JSON object Claude Code passes a hook on stdin; the index
// needs its cwd alone.
type Input struct {
	SessionID     string `json:"session_id"`
	Cwd           string `json:"cwd"`
	HookEventName string `json:"hook_event_name"`
	// Source is startup, resume, clear or compact for SessionStart.
	Source string `json:"source"`
}

// ReadInput reads one JSON object from r, at most MaxInput bytes, waiting
// for it at most wait or until ctx is done. Input that is missing, late,
// too large or not a JSON object reads as the zero Input, and a cwd that
// is not absolute as none. A read still blocked is left to end with the
// process.
func ReadInput(ctx context.Context, r io.Reader, wait time.Duration) Input {
	got := make(chan Input, 1)
	go func() {
		var in Input
		if err := json.NewDecoder(io.LimitReader(r, MaxInput)).Decode(&in); err != nil {
			in = Input{}
		}
		if !filepath.IsAbs(in.Cwd) {
			in.Cwd = ""
		}
		got <- in
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case in := <-got:
		return in
	case <-timer.C:
	case <-ctx.Done():
	}
	return Input{}
}
