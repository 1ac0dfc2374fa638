package scan

import (
	"fmt"
	"log/slog"
	"strings"
)

// ignorePathAllowlists drops every path allowlist of fc and cfg, and warns
// once, naming the settings that held some.
func ignorePathAllowlists(fc fileConfig, cfg Config, log *slog.Logger) (fileConfig, Config) {
	fc, found := withoutPathAllowlists(fc)
	if settings := pathAllowlistSettings(cfg, found); len(settings) > 0 {
		log.Warn("path allowlists ignored: the client chooses every key", "settings", settings)
	}
	cfg.AllowPaths = nil
	return fc, cfg
}

// withoutPathAllowlists removes every path check from the allowlists of
// fc, global and per rule, and says where it found them. An allowlist
// whose condition is AND keys all its checks on the path, so it goes
// whole; one whose condition is OR keeps its other checks (regexes,
// stopwords), and goes when none is left.
func withoutPathAllowlists(fc fileConfig) (fileConfig, []string) {
	var found []string
	var n int
	fc.Allowlists, n = dropPaths(fc.Allowlists)
	if n > 0 {
		found = append(found, "[[allowlists]] paths")
	}
	rules := make([]fileRule, len(fc.Rules))
	for i, r := range fc.Rules {
		r.Allowlists, n = dropPaths(r.Allowlists)
		if n > 0 {
			found = append(found, fmt.Sprintf("rule %s allowlist paths", r.ID))
		}
		rules[i] = r
	}
	fc.Rules = rules
	return fc, found
}

// dropPaths returns lists without their path checks and how many lists
// had some.
func dropPaths(lists []fileAllowlist) ([]fileAllowlist, int) {
	var out []fileAllowlist
	n := 0
	for _, a := range lists {
		if len(a.Paths) == 0 {
			out = append(out, a)
			continue
		}
		n++
		if strings.EqualFold(a.Condition, "and") || a.Condition == "&&" {
			continue
		}
		a.Paths = nil
		if len(a.Regexes)+len(a.StopWords)+len(a.Commits) > 0 {
			out = append(out, a)
		}
	}
	return out, n
}

// pathAllowlistSettings lists the settings that name path allowlists, in
// the words a config file uses, for the warning that they are ignored.
func pathAllowlistSettings(cfg Config, found []string) []string {
	var out []string
	if len(cfg.AllowPaths) > 0 {
		out = append(out, "scan.allow_paths")
	}
	for _, f := range found {
		out = append(out, "scan.gitleaks_config "+cfg.GitleaksConfig+": "+f)
	}
	return out
}
