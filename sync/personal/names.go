package personal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"

	"github.com/teammemd/teammemd/sync/fsio"
)

// namesFile is the map of a lane's wire keys to paths, in its state
// directory.
const namesFile = "names.json"

// nameMap is what a lane's machine knows of which path each wire key
// stands for: the server's deletion markers name only wire keys, and a
// wire key is an HMAC that cannot be read back. The map is kept in the
// lane's state directory, merged with what is there and written
// atomically on every change; its owner guards it.
type nameMap struct {
	file  string
	paths map[string]string // wire key -> path
	dirty bool
	// tried holds the wire keys no known path was found for, with how
	// many paths were known then: they are tried again only once more
	// are known, so a lane's old deletion markers cost nothing per probe.
	tried map[string]int
}

// loadNames reads the map in stateDir; none yet is an empty map.
func loadNames(stateDir string) (*nameMap, error) {
	m := &nameMap{file: filepath.Join(stateDir, namesFile)}
	paths, err := readNames(m.file)
	if err != nil {
		return nil, err
	}
	m.paths = paths
	return m, nil
}

func readNames(file string) (map[string]string, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the personal lane's names: %w", err)
	}
	paths := map[string]string{}
	if err := json.Unmarshal(data, &paths); err != nil {
		// Only deletions from other machines need it, and it is learned
		// again from every pull and push.
		return map[string]string{}, nil
	}
	return paths, nil
}

// path returns the path wire stands for: from the map, else by naming
// each known path with each of keys; ok is false when no known path is
// its.
func (m *nameMap) path(wire string, keys []*Key, project string) (string, bool) {
	if p, ok := m.paths[wire]; ok {
		return p, true
	}
	if n, ok := m.tried[wire]; ok && n == len(m.paths) {
		return "", false
	}
	for _, p := range m.paths {
		for _, k := range keys {
			if k.EntryKey(project, p) == wire {
				m.paths[wire], m.dirty = p, true
				delete(m.tried, wire)
				return p, true
			}
		}
	}
	if m.tried == nil {
		m.tried = map[string]int{}
	}
	m.tried[wire] = len(m.paths)
	return "", false
}

// learn adds names to the map in memory.
func (m *nameMap) learn(names map[string]string) {
	for w, p := range names {
		if m.paths[w] != p {
			m.paths[w], m.dirty = p, true
		}
	}
}

// save merges the map with the file's and writes it, when it learned
// anything since the last save. Another process syncing the same lane
// (teammemd sync beside the daemon) may have added names meanwhile.
func (m *nameMap) save() error {
	if !m.dirty {
		return nil
	}
	disk, err := readNames(m.file)
	if err != nil {
		return err
	}
	maps.Copy(disk, m.paths)
	data, err := json.Marshal(disk)
	if err != nil {
		return fmt.Errorf("encode the personal lane's names: %w", err)
	}
	if err := fsio.WriteFile(m.file, data, 0o600); err != nil {
		return fmt.Errorf("save the personal lane's names: %w", err)
	}
	m.paths, m.dirty = disk, false
	return nil
}
