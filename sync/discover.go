package memsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"

	"github.com/teammemd/teammemd/server/api"
)

// Repo is what Discover finds for a git checkout.
type Repo struct {
	// Slug is the repo slug derived from remote.origin.url.
	Slug string
	// Root is the canonical git root: the main checkout's top directory
	// (shared by its worktrees), symlinks resolved.
	Root string
	// Dir is the team memory directory Claude Code uses for Root.
	Dir string
}

// maxSanitizedLength is where Claude Code cuts a sanitized project name
// before adding a hash suffix.
const maxSanitizedLength = 200

// Discover finds the repo slug and team directory for the git checkout that
// contains dir. The team directory is laid out as Claude Code does:
// <config home>/projects/<sanitized canonical git root>/memory/team, where the
// config home is $CLAUDE_CONFIG_DIR or ~/.claude. Worktrees resolve to their
// main checkout, so they share one team directory.
func Discover(dir string) (Repo, error) {
	ctx := context.Background()
	common, err := git(ctx, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return Repo{}, fmt.Errorf("find git repository from %s: %w", dir, err)
	}
	root, err := canonicalRoot(common)
	if err != nil {
		return Repo{}, err
	}
	remote, err := git(ctx, dir, "config", "--get", "remote.origin.url")
	if err != nil {
		return Repo{}, fmt.Errorf("read remote.origin.url of %s (set one, or pass --repo): %w", root, err)
	}
	slug, err := api.SlugFromRemote(remote)
	if err != nil {
		return Repo{}, err
	}
	home, err := claudeConfigHome()
	if err != nil {
		return Repo{}, err
	}
	return Repo{Slug: slug, Root: root, Dir: resolveLongTeamDir(TeamDir(home, root))}, nil
}

// TeamDir returns the team memory directory Claude Code uses for the
// canonical git root root under the config home.
func TeamDir(configHome, root string) string {
	return filepath.Join(configHome, "projects", SanitizePath(root), "memory", "team")
}

// canonicalRoot turns a git common dir into the canonical checkout root:
// symlinks resolved, the ".git" of a normal checkout dropped (a bare
// repository is its own root), NFC-normalised as Claude Code does.
func canonicalRoot(common string) (string, error) {
	real, err := filepath.EvalSymlinks(common)
	if err != nil {
		return "", fmt.Errorf("resolve git dir %s: %w", common, err)
	}
	root := real
	if filepath.Base(real) == ".git" {
		root = filepath.Dir(real)
	}
	return norm.NFC.String(root), nil
}

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

// claudeConfigHome is $CLAUDE_CONFIG_DIR, else ~/.claude.
func claudeConfigHome() (string, error) {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return filepath.Join(home, ".claude"), nil
}

// resolveLongTeamDir returns an existing project directory that shares the
// cut 200-unit prefix of dir's project name when the exact name is absent,
// so a hash suffix computed by another runtime is still found.
func resolveLongTeamDir(dir string) string {
	project := filepath.Dir(filepath.Dir(dir))
	name := filepath.Base(project)
	if len(name) <= maxSanitizedLength {
		return dir
	}
	if _, err := os.Stat(project); err == nil {
		return dir
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(project), globEscape(name[:maxSanitizedLength])+"-*"))
	if len(matches) != 1 {
		return dir
	}
	return filepath.Join(matches[0], "memory", "team")
}

// globEscape is needed only for safety: sanitized names hold [A-Za-z0-9-].
func globEscape(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}

// git runs git in dir and returns its trimmed output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && stderr.Len() > 0 {
			return "", fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(stderr.String()))
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return strings.TrimSpace(string(out)), nil
}

// maxProjectReads bounds the directories ProjectCheckouts reads for one
// name.
const maxProjectReads = 256

// ProjectCheckouts returns the existing directories whose path Claude Code
// names name (SanitizePath): the checkouts a project directory may belong
// to, found without a session transcript. It walks down from the root,
// into only the entries whose sanitized name continues name, so it reads
// a few directories per level. A name cut to 200 units and hashed cannot be
// walked back; it yields none.
func ProjectCheckouts(name string) []string {
	if len(name) > maxSanitizedLength || !strings.HasPrefix(name, "-") {
		return nil
	}
	w := projectWalk{reads: maxProjectReads}
	w.walk(string(filepath.Separator), name[1:])
	return w.found
}

// projectWalk is one ProjectCheckouts search.
type projectWalk struct {
	reads int
	found []string
}

// walk looks in dir for the entries that rest, the part of the name after
// dir's, begins with, and follows them.
func (w *projectWalk) walk(dir, rest string) {
	if w.reads <= 0 {
		return
	}
	w.reads--
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		s := SanitizePath(e.Name())
		switch {
		case rest == s:
			w.found = append(w.found, filepath.Join(dir, e.Name()))
		case strings.HasPrefix(rest, s+"-"):
			w.walk(filepath.Join(dir, e.Name()), rest[len(s)+1:])
		}
	}
}
