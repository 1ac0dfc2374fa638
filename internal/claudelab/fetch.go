// Package claudelab runs the shipped Claude Code client against fakes, for
// the end-to-end tests that must see what a real client sends: it fetches a
// pinned client build from the npm registry, checks the tarball against the
// registry's sha512 integrity and keeps it unpacked in a cache outside the
// repository; it fakes the Messages API with scripted replies and keeps
// every request the client made; it counts every connection attempt that
// reaches an HTTP proxy, which refuses them all; and it starts a process in
// a network namespace of its own that has nothing but loopback.
package claudelab

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Registry is the npm registry the client builds come from.
const Registry = "https://registry.npmjs.org"

// CacheEnv names the environment variable that overrides the cache
// directory.
const CacheEnv = "TEAMMEMD_CLAUDE_CACHE"

// verifiedName is the file, beside package/, that says the unpacked
// tarball passed its integrity check.
const verifiedName = "teammemd-verified.json"

// Package is one version of an npm package.
type Package struct {
	Name, Version string
}

func (p Package) String() string { return p.Name + "@" + p.Version }

// verified is what a cache entry's verifiedName file holds.
type verified struct {
	Package   string `json:"package"`
	Version   string `json:"version"`
	Integrity string `json:"integrity"`
}

// Fetcher fetches packages from an npm registry into a cache directory,
// one directory per version, <Cache>/<version>/package holding the
// unpacked tarball.
type Fetcher struct {
	// Registry is the registry's base URL.
	Registry string
	// Cache is the cache directory.
	Cache string
	// Client makes the requests; nil is http.DefaultClient.
	Client *http.Client
}

// DefaultCache is $TEAMMEMD_CLAUDE_CACHE, else teammemd/claude-code in the
// user's cache directory ($XDG_CACHE_HOME, else ~/.cache).
func DefaultCache() (string, error) {
	if d := os.Getenv(CacheEnv); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the cache directory (set %s): %w", CacheEnv, err)
	}
	return filepath.Join(d, "teammemd", "claude-code"), nil
}

// Cached returns the unpacked package directory of p when the cache holds
// a verified copy of it, without asking the registry.
func (f Fetcher) Cached(p Package) (string, error) {
	dir := filepath.Join(f.Cache, p.Version)
	data, err := os.ReadFile(filepath.Join(dir, verifiedName))
	if err != nil {
		return "", fmt.Errorf("%s is not in the cache %s: %w", p, f.Cache, err)
	}
	var v verified
	if err := json.Unmarshal(data, &v); err != nil {
		return "", fmt.Errorf("cache entry of %s: %w", p, err)
	}
	if v.Package != p.Name || v.Version != p.Version {
		return "", fmt.Errorf("cache entry %s holds %s@%s, not %s", dir, v.Package, v.Version, p)
	}
	return filepath.Join(dir, "package"), nil
}

// Fetch returns the unpacked package directory of p: the verified copy in
// the cache, else the tarball the registry names for p, downloaded, checked
// against the registry's sha512 integrity and unpacked into the cache.
func (f Fetcher) Fetch(ctx context.Context, p Package) (string, error) {
	if dir, err := f.Cached(p); err == nil {
		return dir, nil
	}
	dist, err := f.dist(ctx, p)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(f.Cache, 0o755); err != nil {
		return "", fmt.Errorf("create the cache: %w", err)
	}
	tmp, err := f.download(ctx, dist)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", p, err)
	}
	defer os.RemoveAll(tmp)
	if err := f.unpack(tmp, p, dist.Integrity); err != nil {
		return "", fmt.Errorf("unpack %s: %w", p, err)
	}
	return f.Cached(p)
}

// dist is the part of a registry's version document that names the
// tarball.
type dist struct {
	Tarball   string `json:"tarball"`
	Integrity string `json:"integrity"`
}

// dist asks the registry where p's tarball is and what its integrity is.
func (f Fetcher) dist(ctx context.Context, p Package) (dist, error) {
	u, err := url.JoinPath(f.Registry, p.Name, p.Version)
	if err != nil {
		return dist{}, fmt.Errorf("registry URL for %s: %w", p, err)
	}
	var doc struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Dist    dist   `json:"dist"`
	}
	if err := f.getJSON(ctx, u, &doc); err != nil {
		return dist{}, fmt.Errorf("look up %s: %w", p, err)
	}
	switch {
	case doc.Name != p.Name || doc.Version != p.Version:
		return dist{}, fmt.Errorf("registry answered %s@%s for %s", doc.Name, doc.Version, p)
	case doc.Dist.Tarball == "" || doc.Dist.Integrity == "":
		return dist{}, fmt.Errorf("registry names no tarball and integrity for %s", p)
	}
	return doc.Dist, nil
}

func (f Fetcher) getJSON(ctx context.Context, u string, v any) error {
	resp, err := f.get(ctx, u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("decode %s: %w", u, err)
	}
	return nil
}

// get sends a GET and returns a 200 response, whose body the caller
// closes.
func (f Fetcher) get(ctx context.Context, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := cmp.Or(f.Client, http.DefaultClient).Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return resp, nil
}

// unpack unpacks the verified tarball into a new directory in the cache,
// records its integrity there and moves it to <Cache>/<version>, replacing
// an entry that was never verified. A verified entry another process put
// there meanwhile is kept.
func (f Fetcher) unpack(tarball string, p Package, integrity string) error {
	tmp, err := os.MkdirTemp(f.Cache, ".unpack-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := untar(tarball, tmp); err != nil {
		return err
	}
	mark, err := json.Marshal(verified{Package: p.Name, Version: p.Version, Integrity: integrity})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, verifiedName), mark, 0o644); err != nil {
		return err
	}
	dir := filepath.Join(f.Cache, p.Version)
	if _, err := f.Cached(p); err == nil {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the unverified %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// sha512Integrity returns the base64 sha512 digest of a Subresource
// Integrity string ("sha512-<base64>", several space-separated hashes
// allowed), or an error when it has none.
func sha512Integrity(integrity string) (string, error) {
	for _, h := range strings.Fields(integrity) {
		if digest, ok := strings.CutPrefix(h, "sha512-"); ok {
			return strings.SplitN(digest, "?", 2)[0], nil
		}
	}
	return "", fmt.Errorf("integrity %q has no sha512 hash", integrity)
}
