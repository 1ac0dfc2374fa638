package teamindex

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
)

// Defaults for Options.
const (
	// DefaultTimeout bounds all of SessionStart, its wait for input too.
	DefaultTimeout = 3 * time.Second
	// DefaultInputWait bounds the wait for the hook's input.
	DefaultInputWait = time.Second
)

// maxReason bounds the one line that says why there is no index.
const maxReason = 300

// Options are what SessionStart needs from its caller.
type Options struct {
	// Locate returns what the index of checkout r is built from: the repo
	// slug, the server URL and the state root the daemon uses for r's team
	// directory. Its error is the one line printed instead of the index.
	Locate func(r claude.Repo) (Source, error)
	// Now returns the current time (default time.Now).
	Now func() time.Time
	// Timeout and InputWait default to DefaultTimeout and
	// DefaultInputWait.
	Timeout, InputWait time.Duration
}

// SessionStart answers Claude Code's SessionStart hook: it reads the
// hook's input from stdin for the session's working directory (else the
// process's), and writes to stdout the index of the team notes of the git
// checkout there. Where there is no index to give it writes one line that
// says why, or nothing outside a git checkout with an origin remote. It
// never fails, and it returns within the timeout whatever the disk does.
func SessionStart(ctx context.Context, stdin io.Reader, stdout io.Writer, opts Options) {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(opts.Timeout, DefaultTimeout))
	defer cancel()
	cwd := ReadInput(ctx, stdin, cmp.Or(opts.InputWait, DefaultInputWait)).Cwd
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return
		}
	}
	done := make(chan string, 1)
	go func() { done <- sessionText(ctx, cwd, opts) }()
	select {
	case text := <-done:
		io.WriteString(stdout, text)
	case <-ctx.Done():
		io.WriteString(stdout, "teammemd: the team notes index took too long to read; teammemd status shows how the sync is doing.\n")
	}
}

// sessionText is what SessionStart writes for the checkout at cwd.
func sessionText(ctx context.Context, cwd string, opts Options) string {
	r, err := claude.DiscoverContext(ctx, cwd)
	if err != nil {
		return "" // not a checkout whose notes teammemd could sync
	}
	src, err := opts.Locate(r)
	if err != nil {
		return reason("team notes not listed: %v", err)
	}
	idx, err := Build(src)
	switch {
	case errors.Is(err, memsync.ErrNoState):
		return reason("the team notes of %s are listed once the daemon has synced them on this machine (teammemd status shows how it is doing).", src.Repo)
	case err != nil:
		return reason("team notes of %s not listed: %v", src.Repo, err)
	}
	var b strings.Builder
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	if err := Render(&b, idx, now()); err != nil {
		return ""
	}
	return b.String()
}

// reason is the one line that says why there is no index.
func reason(format string, args ...any) string {
	return "teammemd: " + oneLine(fmt.Sprintf(format, args...), maxReason) + "\n"
}
