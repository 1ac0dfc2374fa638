// Package claude knows Claude Code's directory layout: where its config
// directory is ($CLAUDE_CONFIG_DIR, else ~/.claude), how it names the
// project directory of a path (SanitizePath), where a checkout's team
// memory lives (TeamDir, Discover), how a project directory maps back to
// its checkout (Projects, through its name or its session transcripts),
// and which changes under it can add a project (WatchProjects).
package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
)

// maxSanitizedLength is where Claude Code cuts a sanitized project name
// before adding a hash suffix.
const maxSanitizedLength = 200

// Home is Claude Code's config directory: $CLAUDE_CONFIG_DIR, else
// ~/.claude. It fails when neither that variable nor the home directory
// is known.
func Home() (string, error) {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find Claude Code's config directory (set CLAUDE_CONFIG_DIR): %w", err)
	}
	return filepath.Join(home, ".claude"), nil
}

// TeamDir returns the team memory directory Claude Code uses for the
// canonical git root root under the config home.
func TeamDir(configHome, root string) string {
	return filepath.Join(projectsDir(configHome), SanitizePath(root), "memory", "team")
}

// projectsDir holds one directory per project.
func projectsDir(configHome string) string { return filepath.Join(configHome, "projects") }

// SanitizePath turns an absolute path into a Claude Code project directory
// name: every UTF-16 code unit outside [A-Za-z0-9] becomes "-" (so a
// character outside the BMP yields two), and a result over 200 units is cut
// to 200 and suffixed with "-" and the base-36 absolute value of the 32-bit
// string hash (h = h*31 + unit) of the original path. That is the suffix of
// Claude Code's Node.js build; its Bun build hashes differently, so Discover
// prefers an existing directory with the same 200-unit prefix.
func SanitizePath(p string) string {
	units := utf16.Encode([]rune(p))
	out := make([]byte, 0, len(units))
	for _, u := range units {
		if u < 0x80 && isAlnum(byte(u)) {
			out = append(out, byte(u))
		} else {
			out = append(out, '-')
		}
	}
	if len(out) <= maxSanitizedLength {
		return string(out)
	}
	return string(out[:maxSanitizedLength]) + "-" + strconv.FormatInt(abs64(int64(stringHash(units))), 36)
}

// stringHash is the 32-bit h = h*31 + c over UTF-16 code units.
func stringHash(units []uint16) int32 {
	var h int32
	for _, u := range units {
		h = h<<5 - h + int32(u)
	}
	return h
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func isAlnum(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// CheckoutOf returns the checkout whose team directory, under the config
// home, is dir: ok is false when dir is not a Claude Code team directory
// there, and checkout is empty when no directory on this machine has the
// project's name as its path.
func CheckoutOf(home, dir string) (checkout string, ok bool) {
	rel, err := filepath.Rel(projectsDir(home), dir)
	if err != nil {
		return "", false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) != 3 || parts[0] == ".." || parts[1] != "memory" || parts[2] != "team" {
		return "", false
	}
	if found := ProjectCheckouts(parts[0]); len(found) > 0 {
		return found[0], true
	}
	return "", true
}

// RepoOfTeamDir maps dir, a Claude Code project's team directory under the
// config home or a directory in it, back to the project's repo as
// discovery does (by the project's name, or a session transcript's
// working directory). ok is false when dir is in no project's team
// directory; err says why a project's could not be mapped.
func RepoOfTeamDir(home, dir string) (repo Repo, ok bool, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Repo{}, false, err
	}
	rel, err := filepath.Rel(projectsDir(home), abs)
	if err != nil {
		return Repo{}, false, nil
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) < 3 || parts[0] == ".." || parts[0] == "." || parts[1] != "memory" || parts[2] != "team" {
		return Repo{}, false, nil
	}
	p, err := project(filepath.Join(projectsDir(home), parts[0]))
	if err != nil {
		return Repo{}, true, err
	}
	return p.Repo, true, nil
}

// MemoryDirOf returns the memory directory of the Claude Code project
// whose team directory, under the config home, is dir: ok is false when
// dir is not a project's team directory there.
func MemoryDirOf(home, dir string) (string, bool) {
	rel, err := filepath.Rel(projectsDir(home), dir)
	if err != nil {
		return "", false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) != 3 || parts[0] == ".." || parts[0] == "." || parts[1] != "memory" || parts[2] != "team" {
		return "", false
	}
	return filepath.Dir(dir), true
}
