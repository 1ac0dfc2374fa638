package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// BackupInfo describes a backup Backup made.
type BackupInfo struct {
	// StoreID is the identity the backup carries, the source's; a restore
	// ends by giving the database a new one.
	StoreID string
	// Repos and Entries count the repos and their live entries.
	Repos, Entries int64
	// Bytes is the size of the backup file.
	Bytes int64
}

// Backup writes a consistent copy of the database at src to dst, a file
// that must not exist yet, while servers may be reading and writing src:
// SQLite's VACUUM INTO copies what one read transaction sees, the
// write-ahead log's commits included, and leaves src as it was. The copy
// is made in a private directory beside dst (mode 0700, the file 0600: it
// holds every note and the tokens' hashes), checked, synced, and only then
// linked into place, so dst is either absent or a whole, checked backup.
func Backup(ctx context.Context, src, dst string) (BackupInfo, error) {
	if _, err := os.Lstat(dst); err == nil {
		return BackupInfo{}, fmt.Errorf("%s exists: a backup never replaces a file", dst)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return BackupInfo{}, fmt.Errorf("backup target: %w", err)
	}
	dir, err := os.MkdirTemp(filepath.Dir(dst), ".teammemd-backup-")
	if err != nil {
		return BackupInfo{}, fmt.Errorf("backup target: %w", err)
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, FileName)
	if err := vacuumInto(ctx, src, tmp); err != nil {
		return BackupInfo{}, err
	}
	info, err := checkBackup(ctx, tmp)
	if err != nil {
		return BackupInfo{}, err
	}
	if err := syncFile(tmp); err != nil {
		return BackupInfo{}, err
	}
	if err := putInPlace(tmp, dst); err != nil {
		return BackupInfo{}, fmt.Errorf("put the backup at %s: %w", dst, err)
	}
	if err := syncFile(filepath.Dir(dst)); err != nil && !errors.Is(err, os.ErrInvalid) {
		return BackupInfo{}, err
	}
	return info, nil
}

// putInPlace gives the finished backup tmp its name dst without replacing
// a file: a hard link, which fails if dst exists. A file system without
// hard links (vfat, some network mounts) gets a rename after a last look
// that dst is still absent.
func putInPlace(tmp, dst string) error {
	err := os.Link(tmp, dst)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, lerr := os.Lstat(dst); !errors.Is(lerr, fs.ErrNotExist) {
		return fmt.Errorf("%s appeared meanwhile: %w", dst, errors.Join(err, lerr))
	}
	return os.Rename(tmp, dst)
}

// vacuumInto copies the database at src into the new file dst, mode 0600.
func vacuumInto(ctx context.Context, src, dst string) error {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("server database: %w", err)
	}
	db, err := sql.Open("sqlite", fileURI(src, "mode=rw&_busy_timeout=10000"))
	if err != nil {
		return fmt.Errorf("open %s: %w", src, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := os.Chmod(dst, 0o600); err != nil {
		return fmt.Errorf("backup file: %w", err)
	}
	return nil
}

// checkBackup runs SQLite's quick check on the backup at path and reads
// what it holds, without writing to it.
func checkBackup(ctx context.Context, path string) (BackupInfo, error) {
	db, err := sql.Open("sqlite", fileURI(path, "mode=ro&immutable=1"))
	if err != nil {
		return BackupInfo{}, fmt.Errorf("check the backup: %w", err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&check); err != nil {
		return BackupInfo{}, fmt.Errorf("check the backup: %w", err)
	}
	if check != "ok" {
		return BackupInfo{}, fmt.Errorf("check the backup: SQLite's quick check says %q", check)
	}
	var info BackupInfo
	err = db.QueryRowContext(ctx, `SELECT
		(SELECT value FROM meta WHERE key = 'store_id'),
		(SELECT count(*) FROM repos),
		(SELECT count(*) FROM entries WHERE deleted_at IS NULL)`).Scan(&info.StoreID, &info.Repos, &info.Entries)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("check the backup: not a teammemd database: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("check the backup: %w", err)
	}
	info.Bytes = fi.Size()
	return info, nil
}

// syncFile fsyncs the file or directory at path.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}
