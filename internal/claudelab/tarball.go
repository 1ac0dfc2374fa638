package claudelab

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxTarball bounds a download: the native client tarballs are under
// 200 MB.
const maxTarball = 1 << 30

// download fetches the tarball into a new file in the cache and checks it
// against the integrity; it returns the file's path, which the caller
// removes.
func (f Fetcher) download(ctx context.Context, d dist) (string, error) {
	want, err := sha512Integrity(d.Integrity)
	if err != nil {
		return "", err
	}
	resp, err := f.get(ctx, d.Tarball)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	out, err := os.CreateTemp(f.Cache, ".download-")
	if err != nil {
		return "", err
	}
	h := sha512.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(resp.Body, maxTarball+1))
	if closeErr := out.Close(); err == nil {
		err = closeErr
	}
	switch got := base64.StdEncoding.EncodeToString(h.Sum(nil)); {
	case err != nil:
		err = fmt.Errorf("download %s: %w", d.Tarball, err)
	case n > maxTarball:
		err = fmt.Errorf("%s is over %d bytes", d.Tarball, maxTarball)
	case got != want:
		err = fmt.Errorf("%s has sha512 %s, but the registry's integrity says %s", d.Tarball, got, want)
	}
	if err != nil {
		os.Remove(out.Name())
		return "", err
	}
	return out.Name(), nil
}

// untar unpacks the gzipped tarball into dir: its directories and regular
// files, with their executable bits. Any other kind of entry, and a path
// that leaves dir, is an error.
func untar(tarball, dir string) error {
	f, err := os.Open(tarball)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", tarball, err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tarball, err)
		}
		if err := untarEntry(tr, hdr, dir); err != nil {
			return err
		}
	}
}

// untarEntry writes one entry of the tarball under dir.
func untarEntry(r io.Reader, hdr *tar.Header, dir string) error {
	name := filepath.Clean(filepath.FromSlash(hdr.Name))
	if !filepath.IsLocal(name) {
		return fmt.Errorf("tarball entry %q leaves the directory", hdr.Name)
	}
	path := filepath.Join(dir, name)
	switch hdr.Typeflag {
	case tar.TypeDir:
		return os.MkdirAll(path, 0o755)
	case tar.TypeReg:
		return writeEntry(r, path, os.FileMode(0o644|hdr.Mode&0o111))
	case tar.TypeXGlobalHeader:
		return nil // metadata of the archive, not a file
	}
	return fmt.Errorf("tarball entry %q is of type %q, want a file or a directory", hdr.Name, strings.TrimSpace(string(hdr.Typeflag)))
}

func writeEntry(r io.Reader, path string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, r)
	if closeErr := out.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
