package memsync

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// dirRecordFile names, in a repo's state directory, the file that holds
// the team directory the state is of.
const dirRecordFile = "dir"

// stateDirOf returns the state directory of slug on host for the team
// directory dir (absolute) under the state root stateDir. The first
// directory to sync a repo there has repoStateDir's and records itself in
// it (with claim); every other directory of the same repo and server, such
// as a second checkout's, has a state directory of its own, named after
// it. So two directories of one repo never share a merge base, which
// would make each push back the other's older notes. Without claim, as a
// reader outside the engine, it records nothing.
func stateDirOf(stateDir, slug, host, dir string, claim bool) (string, error) {
	base := repoStateDir(stateDir, slug, host)
	recorded, err := readDirRecord(base)
	if errors.Is(err, fs.ErrNotExist) && claim {
		recorded, err = claimDirRecord(base, dir)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return base, nil // unclaimed: the next engine to open claims it for its directory
	case err != nil:
		return "", err
	case sameDir(recorded, dir):
		return base, nil
	}
	sum := sha256.Sum256([]byte(dir))
	return base + "~" + hex.EncodeToString(sum[:6]), nil
}

// readDirRecord reads the team directory recorded in the state directory
// base.
func readDirRecord(base string) (string, error) {
	data, err := os.ReadFile(filepath.Join(base, dirRecordFile))
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

// claimDirRecord records dir in base unless a directory is recorded there
// already, and returns the one recorded: two engines claiming at once
// agree on one.
func claimDirRecord(base, dir string) (string, error) {
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", fmt.Errorf("create state directory: %w", err)
	}
	tmp, err := writeTemp(base, dir+"\n")
	if err != nil {
		return "", fmt.Errorf("record the team directory of %s: %w", base, err)
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, filepath.Join(base, dirRecordFile))
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("record the team directory of %s: %w", base, err)
	}
	return readDirRecord(base)
}

// writeTemp writes data, synced, to a new file in dir and returns its
// path.
func writeTemp(dir, data string) (string, error) {
	f, err := os.CreateTemp(dir, dirRecordFile+".new-*")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// sameDir reports whether a and b name one directory: the same path, or
// two spellings (through a symbolic link) of one that exists.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
