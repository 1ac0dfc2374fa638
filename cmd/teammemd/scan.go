package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/checkup"
	"github.com/teammemd/teammemd/scan"
)

// newScanCmd is "teammemd scan".
func newScanCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scan PATH...",
		Short: "Scan files and directories for secrets",
		Long: `Scan files and directories for secrets with the rules the daemon applies
before a push (gitleaks' and the config's [scan]), and report each finding
as text, JSON or SARIF. Exits 1 when it finds a secret, 2 on an error; a
path it cannot read is named and the others are scanned, and exits 2 when
nothing was found.`,
		Example: `  teammemd scan team/
  teammemd scan team/ --format json
  teammemd scan notes.md --format sarif --cache ""`,
		Args: wantArgs(1, -1, "one PATH or more"),
	}
	fs := cmd.Flags()
	configPath := fs.String("config", "", "config file (default $TEAMMEMD_CONFIG, then the user config)")
	format := fs.String("format", "text", "report format: text, json or sarif")
	cacheFile := fs.String("cache", scanCacheFile(stateDir()), "verdict cache file; empty for none")
	asJSON := fs.Bool("json", false, "print the report as JSON: --format json")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if *asJSON && cmd.Flags().Changed("format") && *format != "json" {
			return usageError{fmt.Errorf("scan: --json and --format %s ask for two reports: pass one", *format)}
		}
		if *asJSON {
			*format = "json"
		}
		return runScan(ctx, configPath, format, cacheFile, args, stdout, stderr)
	})
	return cmd
}

// runScan is "teammemd scan": it scans files and directories for secrets
// and exits 1 when it finds any.
func runScan(ctx context.Context, configPath, format, cacheFile *string, args []string, stdout, stderr io.Writer) error {
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
	findings, files, err := s.CountedPaths(ctx, args)
	var unread *scan.PathsError
	if err != nil && !errors.As(err, &unread) {
		return exitError{code: 2, err: err}
	}
	if err := s.Flush(); err != nil {
		log.Warn("scan cache not saved", "err", err)
	}
	if err := scan.Write(stdout, *format, findings); err != nil {
		return exitError{code: 2, err: err}
	}
	return scanOutcome(stderr, findings, files, unread)
}

// scanOutcome says how a scan ended: secrets found exit 1, with the paths
// it could not read named on stderr; else those paths exit 2; else the
// summary of a clean scan.
func scanOutcome(stderr io.Writer, findings []scan.Finding, files int, unread *scan.PathsError) error {
	found := fmt.Errorf("scan: %d secret(s) found", len(findings))
	switch {
	case len(findings) > 0 && unread != nil:
		return exitError{code: 1, err: errors.Join(found, fmt.Errorf("and these paths were not scanned:\n%w", unread))}
	case len(findings) > 0:
		return exitError{code: 1, err: found}
	case unread != nil:
		return exitError{code: 2, err: fmt.Errorf("%w\n(%d other %s scanned: no secrets found)", unread, files, checkup.Plural(files, "file", "files"))}
	}
	return scanSummary(stderr, files)
}

// scanSummary says on stderr that a scan found nothing, and in how many
// files, so a clean scan is not silent; stdout stays the report alone, as
// clean to a reader of JSON or SARIF as to a terminal.
func scanSummary(stderr io.Writer, files int) error {
	_, err := fmt.Fprintf(stderr, "scanned %d %s, no secrets found\n", files, checkup.Plural(files, "file", "files"))
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
