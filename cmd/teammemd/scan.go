package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"

	"github.com/teammemd/teammemd/scan"
)

// runScan is "teammemd scan": it scans files and directories for secrets
// and exits 1 when it finds any.
func runScan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("scan", stderr)
	configPath := fs.String("config", "", "config file (default $TEAMMEMD_CONFIG, then the user config)")
	format := fs.String("format", "text", "report format: text, json or sarif")
	cacheFile := fs.String("cache", scanCacheFile(stateDir()), "verdict cache file; empty for none")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: teammemd scan [--config F] [--format text|json|sarif] [--cache F] PATH...")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{errors.New("scan: no paths given")}
	}
	if !slices.Contains(scan.Formats, *format) {
		return usageError{fmt.Errorf("scan: unknown format %q (want text, json or sarif)", *format)}
	}
	cfg, err := loadConfig(*configPath)
	if err != nil {
		return exitError{code: 2, err: err}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := []scan.Option{scan.WithLogger(log)}
	if *cacheFile != "" {
		opts = append(opts, scan.WithCacheFile(*cacheFile))
	}
	s, err := scan.New(cfg.Scan, opts...)
	if err != nil {
		return exitError{code: 2, err: err}
	}
	findings, files, err := s.CountedPaths(ctx, fs.Args())
	if err != nil {
		return exitError{code: 2, err: err}
	}
	if err := s.Flush(); err != nil {
		log.Warn("scan cache not saved", "err", err)
	}
	if err := scan.Write(stdout, *format, findings); err != nil {
		return exitError{code: 2, err: err}
	}
	if len(findings) > 0 {
		return exitError{code: 1, err: fmt.Errorf("scan: %d secret(s) found", len(findings))}
	}
	return scanSummary(stderr, files)
}

// scanSummary says on stderr that a scan found nothing, and in how many
// files, so a clean scan is not silent; stdout stays the report alone, as
// clean to a reader of JSON or SARIF as to a terminal.
func scanSummary(stderr io.Writer, files int) error {
	_, err := fmt.Fprintf(stderr, "scanned %d %s, no secrets found\n", files, plural(files, "file", "files"))
	return err
}

// scanCacheFile is where the sync engine and the daemon keep scan verdicts,
// so a restart does not rescan unchanged files.
func scanCacheFile(state string) string { return filepath.Join(state, "scan-cache.json") }

// clientScanner builds the scanner the sync engine uses before every push,
// with its verdict cache persisted under the state directory.
func clientScanner(cfg scan.Config, state string, log *slog.Logger) (*scan.Scanner, error) {
	sc, err := scan.New(cfg, scan.WithLogger(log), scan.WithCacheFile(scanCacheFile(state)))
	if err != nil {
		return nil, fmt.Errorf("load secret scanner: %w", err)
	}
	return sc, nil
}
