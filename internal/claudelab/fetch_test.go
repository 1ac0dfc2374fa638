package claudelab

import (
	"archive/tar"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// tarEntry is one file of a test tarball.
type tarEntry struct {
	name, body string
	mode       int64
	kind       byte
}

func makeTarball(t *testing.T, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.body)), Typeflag: e.kind}
		if e.kind == tar.TypeSymlink {
			hdr.Linkname, hdr.Size = e.body, 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Size > 0 {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func integrityOf(data []byte) string {
	sum := sha512.Sum512(data)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// registry is a fake npm registry: one version document per package
// version, naming a tarball it serves, and a count of tarball downloads.
type registry struct {
	*httptest.Server
	downloads atomic.Int32
}

// release is what the fake registry holds for one version; its document
// names the package docName, when set, instead of pkg's.
type release struct {
	pkg       Package
	tarball   []byte
	integrity string
	docName   string
}

func newRegistry(t *testing.T, releases ...release) *registry {
	t.Helper()
	r := &registry{}
	mux := http.NewServeMux()
	for i, rel := range releases {
		tgz := "/tarballs/" + string(rune('a'+i)) + ".tgz"
		mux.HandleFunc("GET /"+rel.pkg.Name+"/"+rel.pkg.Version, func(w http.ResponseWriter, req *http.Request) {
			json.NewEncoder(w).Encode(map[string]any{"name": cmp.Or(rel.docName, rel.pkg.Name), "version": rel.pkg.Version,
				"dist": map[string]string{"tarball": r.URL + tgz, "integrity": rel.integrity}})
		})
		mux.HandleFunc("GET "+tgz, func(w http.ResponseWriter, req *http.Request) {
			r.downloads.Add(1)
			w.Write(rel.tarball)
		})
	}
	r.Server = httptest.NewServer(mux)
	t.Cleanup(r.Close)
	return r
}

func TestFetch(t *testing.T) {
	good := makeTarball(t, tarEntry{name: "package/claude", body: "#!/bin/sh\necho 1.0.0\n", mode: 0o755, kind: tar.TypeReg},
		tarEntry{name: "package/vendor/", mode: 0o755, kind: tar.TypeDir},
		tarEntry{name: "package/vendor/x/README.md", body: "x", mode: 0o644, kind: tar.TypeReg})
	okPkg := Package{Name: "@acme/client-linux-x64", Version: "1.0.0"}
	badPkg := Package{Name: "@acme/client-linux-x64", Version: "1.0.1"}
	reg := newRegistry(t, release{pkg: okPkg, tarball: good, integrity: integrityOf(good)},
		release{pkg: badPkg, tarball: good, integrity: integrityOf([]byte("another tarball"))})
	f := Fetcher{Registry: reg.URL, Cache: t.TempDir(), Client: reg.Client()}

	dir, err := f.Fetch(t.Context(), okPkg)
	if err != nil {
		t.Fatalf("Fetch(%s) = %v", okPkg, err)
	}
	if want := filepath.Join(f.Cache, "1.0.0", "package"); dir != want {
		t.Errorf("Fetch(%s) = %s, want %s", okPkg, dir, want)
	}
	info, err := os.Stat(filepath.Join(dir, "claude"))
	if err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("unpacked claude: %v, %v, want mode 0755", info, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "vendor", "x", "README.md")); string(got) != "x" {
		t.Errorf("unpacked vendor/x/README.md = %q, want %q", got, "x")
	}
	if _, err := f.Fetch(t.Context(), okPkg); err != nil {
		t.Fatalf("Fetch(%s) again = %v", okPkg, err)
	}
	if n := reg.downloads.Load(); n != 1 {
		t.Errorf("tarball downloads after two fetches = %d, want 1 (the second from the cache)", n)
	}

	if _, err := f.Fetch(t.Context(), badPkg); err == nil || !strings.Contains(err.Error(), "integrity") {
		t.Errorf("Fetch(wrong integrity) = %v, want an integrity error", err)
	}
	if _, err := f.Cached(badPkg); err == nil {
		t.Errorf("Cached(%s) = nil error after a failed integrity check, want not cached", badPkg)
	}
	left, _ := filepath.Glob(filepath.Join(f.Cache, ".*"))
	if len(left) != 0 {
		t.Errorf("cache holds %q after the fetches, want no temporary files", left)
	}
}

func TestFetchRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, docName string
		entry         tarEntry
		want          string
	}{
		{"escape", "", tarEntry{name: "../evil", body: "x", mode: 0o644, kind: tar.TypeReg}, "leaves the directory"},
		{"symlink", "", tarEntry{name: "package/link", body: "/etc/passwd", mode: 0o777, kind: tar.TypeSymlink}, "want a file or a directory"},
		{"other package", "@acme/other", tarEntry{name: "package/x", body: "x", mode: 0o644, kind: tar.TypeReg}, "registry answered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tgz := makeTarball(t, tc.entry)
			p := Package{Name: "@acme/client", Version: "1.0.0"}
			reg := newRegistry(t, release{pkg: p, tarball: tgz, integrity: integrityOf(tgz), docName: tc.docName})
			f := Fetcher{Registry: reg.URL, Cache: filepath.Join(t.TempDir(), "cache"), Client: reg.Client()}
			_, err := f.Fetch(t.Context(), p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Fetch(%s) = %v, want an error with %q", tc.name, err, tc.want)
			}
			if left, _ := os.ReadDir(f.Cache); len(left) != 0 {
				t.Errorf("cache holds %v after Fetch(%s) failed, want nothing", left, tc.name)
			}
		})
	}
}

func TestSHA512Integrity(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"sha512-abc=", "abc="},
		{"sha1-xyz sha512-abc=?opt", "abc="},
	} {
		if got, err := sha512Integrity(tc.in); got != tc.want || err != nil {
			t.Errorf("sha512Integrity(%q) = %q, %v, want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := sha512Integrity("sha1-xyz"); err == nil {
		t.Errorf("sha512Integrity(sha1 only) = nil error, want one")
	}
}

func TestDefaultCache(t *testing.T) {
	t.Setenv(CacheEnv, "/somewhere")
	if got, err := DefaultCache(); got != "/somewhere" || err != nil {
		t.Errorf("DefaultCache() with %s set = %q, %v, want /somewhere", CacheEnv, got, err)
	}
	t.Setenv(CacheEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/cache")
	if got, err := DefaultCache(); got != "/cache/teammemd/claude-code" || err != nil {
		t.Errorf("DefaultCache() = %q, %v, want /cache/teammemd/claude-code", got, err)
	}
}
