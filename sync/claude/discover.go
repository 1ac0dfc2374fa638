package claude

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

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

// Discover finds the repo slug and team directory for the git checkout that
// contains dir. The team directory is laid out as Claude Code does:
// <config home>/projects/<sanitized canonical git root>/memory/team, where the
// config home is Home. Worktrees resolve to their main checkout, so they
// share one team directory.
func Discover(dir string) (Repo, error) {
	return DiscoverContext(context.Background(), dir)
}

// DiscoverContext is Discover with the git commands it runs bounded by
// ctx.
func DiscoverContext(ctx context.Context, dir string) (Repo, error) {
	return discover(ctx, dir, Home)
}

// DiscoverIn is DiscoverContext for Claude Code's config directory home
// rather than Home: where a checkout's team directory is for a client run
// with CLAUDE_CONFIG_DIR=home.
func DiscoverIn(ctx context.Context, home, dir string) (Repo, error) {
	return discover(ctx, dir, func() (string, error) { return home, nil })
}

// discover finds dir's repo, its team directory under the config
// directory configHome returns.
func discover(ctx context.Context, dir string, configHome func() (string, error)) (Repo, error) {
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
	home, err := configHome()
	if err != nil {
		return Repo{}, err
	}
	return Repo{Slug: slug, Root: root, Dir: resolveLongTeamDir(TeamDir(home, root))}, nil
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
