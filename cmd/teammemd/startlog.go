package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
)

// reportIn logs err, the reason a long-running command stops, on log, so
// that even a start-up error comes out in the log's format (JSON under a
// service manager), and returns it as already told: the exit status stays
// what exitCode makes of err. A stop by a signal is no failure and is not
// logged.
func reportIn(ctx context.Context, log *slog.Logger, msg string, err error) error {
	if err == nil || errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return err
	}
	log.Error(msg, "err", err)
	return exitError{code: exitCode(ctx, err, io.Discard)}
}
