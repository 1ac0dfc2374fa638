package route

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// newSettingsMode is the mode of a settings file setup creates: it may
// come to hold the user's own secrets in its env block.
const newSettingsMode fs.FileMode = 0o600

// Plan is a change to Claude Code's settings, ready to write.
type Plan struct {
	// Settings is the file, Before and After its content (Before is nil
	// when the file does not exist).
	Settings      string
	Before, After []byte
	Existed       bool
	Mode          fs.FileMode
	// Record is the record Apply saves at RecordPath.
	Record     Record
	RecordPath string
	// BackupPath is where Apply copies Before; empty when an earlier
	// setup's backup stands.
	BackupPath string
}

// Unchanged reports whether the settings already hold the change and
// the record knows it.
func (p Plan) Unchanged() bool {
	return p.Existed && bytes.Equal(p.Before, p.After) && p.BackupPath == "" && p.Record.Written == sum(p.After)
}

// PlanSetup reads the settings file and the record of an earlier setup,
// and returns the plan that merges c into the settings.
func PlanSetup(settings, recordPath string, c Change, now time.Time) (Plan, error) {
	p := Plan{Settings: settings, RecordPath: recordPath, Mode: newSettingsMode}
	before, err := os.ReadFile(settings)
	switch {
	case err == nil:
		p.Before, p.Existed = before, true
		if fi, err := os.Stat(settings); err == nil {
			p.Mode = fi.Mode().Perm()
		}
	case !errors.Is(err, fs.ErrNotExist):
		return Plan{}, fmt.Errorf("read Claude Code's settings: %w", err)
	}
	after, prior, err := merge(p.Before, c)
	if err != nil {
		return Plan{}, fmt.Errorf("the settings %s of Claude Code cannot take the change, so nothing was written: %w; fix the file, then run setup again", settings, err)
	}
	p.After = after
	old, err := LoadRecord(recordPath)
	if err != nil {
		return Plan{}, err
	}
	if old != nil && old.Settings != settings {
		return Plan{}, fmt.Errorf("setup changed %s before (recorded in %s); undo that first: teammemd setup claude --undo", old.Settings, recordPath)
	}
	p.Record = nextRecord(old, p, c, prior, now)
	if old == nil && p.Existed {
		p.BackupPath = settings + ".teammemd-backup-" + now.UTC().Format("20060102T150405Z")
	}
	return p, nil
}

// nextRecord is the record after p: a first one, or old carried on.
func nextRecord(old *Record, p Plan, c Change, prior map[string]*string, now time.Time) Record {
	if old == nil {
		return Record{Format: recordFormat, Settings: p.Settings, Existed: p.Existed, Exact: true,
			Written: sum(p.After), Env: prior, Set: maps.Clone(c.Env), Hook: c.Hook, Created: created(p.Before), Time: now.UTC()}
	}
	r := *old
	r.Exact = old.Exact && sum(p.Before) == old.Written
	r.Env, r.Set = maps.Clone(old.Env), maps.Clone(c.Env)
	for k, v := range prior {
		if _, seen := r.Env[k]; !seen {
			r.Env[k] = v
		}
	}
	r.Hook, r.Written, r.Time = c.Hook, sum(p.After), now.UTC()
	return r
}

// Apply writes the plan: the backup first, then the record, then the
// settings, so that a crash leaves nothing Undo cannot reverse.
func Apply(p Plan, write WriteFunc) error {
	if p.BackupPath != "" {
		if err := write(p.BackupPath, p.Before, p.Mode); err != nil {
			return fmt.Errorf("back up Claude Code's settings: %w", err)
		}
		p.Record.Backup = p.BackupPath
	}
	if err := p.Record.save(p.RecordPath, write); err != nil {
		return err
	}
	if err := write(p.Settings, p.After, p.Mode); err != nil {
		return fmt.Errorf("write Claude Code's settings: %w", err)
	}
	return nil
}

// Undone says how Undo reversed a setup.
type Undone struct {
	// Settings is the file restored.
	Settings string
	// Exact is true when the file is back byte for byte as before setup
	// (or gone, if setup created it).
	Exact bool
	// Kept lists the env keys changed since setup, which Undo left alone.
	Kept []string
	// Backup is the backup left in place after an undo that was not exact.
	Backup string
}

// Undo reverses the setup recorded at recordPath. When the settings file
// is as setup left it, the backup comes back byte for byte; otherwise
// only setup's own keys and hook are taken out, and the user's later
// changes stay.
func Undo(recordPath string, write WriteFunc) (Undone, error) {
	r, err := LoadRecord(recordPath)
	if err != nil {
		return Undone{}, err
	}
	if r == nil {
		return Undone{}, fmt.Errorf("nothing to undo: no setup is recorded in %s", recordPath)
	}
	u, err := undo(r, write)
	if err != nil {
		return Undone{}, err
	}
	if err := os.Remove(recordPath); err != nil {
		return Undone{}, fmt.Errorf("remove the setup record: %w", err)
	}
	if u.Exact && r.Backup != "" {
		if err := os.Remove(r.Backup); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Undone{}, fmt.Errorf("remove the backup: %w", err)
		}
	}
	return u, nil
}

// undo restores the settings file r describes.
func undo(r *Record, write WriteFunc) (Undone, error) {
	u := Undone{Settings: r.Settings}
	cur, err := os.ReadFile(r.Settings)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return u, fmt.Errorf("read Claude Code's settings: %w", err)
	}
	gone := err != nil
	if (r.Exact && !gone && sum(cur) == r.Written) || gone {
		u.Exact = true
		return u, restoreBackup(r, write)
	}
	mode := newSettingsMode
	if fi, err := os.Stat(r.Settings); err == nil {
		mode = fi.Mode().Perm()
	}
	out, kept, err := takeOut(cur, r)
	if err != nil {
		before := "setup created the file, so there is no backup"
		if r.Backup != "" {
			before = "the backup is " + r.Backup
		}
		return u, fmt.Errorf("the settings %s of Claude Code changed since setup and cannot be undone key by key: %w; %s", r.Settings, err, before)
	}
	u.Kept, u.Backup = kept, r.Backup
	return u, write(r.Settings, out, mode)
}

// restoreBackup puts the file back as it was before the first setup.
func restoreBackup(r *Record, write WriteFunc) error {
	if !r.Existed {
		if err := os.Remove(r.Settings); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove Claude Code's settings, which setup created: %w", err)
		}
		return nil
	}
	data, err := os.ReadFile(r.Backup)
	if err != nil {
		return fmt.Errorf("read the backup of Claude Code's settings: %w", err)
	}
	fi, err := os.Stat(r.Backup)
	if err != nil {
		return fmt.Errorf("read the backup of Claude Code's settings: %w", err)
	}
	return write(r.Settings, data, fi.Mode().Perm())
}

// takeOut removes setup's keys and hook from doc: each env key still
// holding what setup set gets its earlier value back; one the user has
// changed since is kept and named.
func takeOut(doc []byte, r *Record) (out []byte, kept []string, err error) {
	if err := checkSettings(doc); err != nil {
		return nil, nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(r.Env)) {
		v := gjson.GetBytes(doc, envPath(name))
		if !v.Exists() || v.String() != r.Set[name] {
			kept = append(kept, name)
			continue
		}
		if prev := r.Env[name]; prev != nil {
			doc, err = sjson.SetBytes(doc, envPath(name), *prev)
		} else {
			doc, err = sjson.DeleteBytes(doc, envPath(name))
		}
		if err != nil {
			return nil, nil, fmt.Errorf("restore env.%s: %w", name, err)
		}
	}
	if doc, err = removeHooks(doc, func(cmd string) bool { return cmd == r.Hook }); err != nil {
		return nil, nil, err
	}
	for i := len(r.Created) - 1; i >= 0; i-- {
		if v := gjson.GetBytes(doc, r.Created[i]); v.Exists() && isEmpty(v) {
			if doc, err = sjson.DeleteBytes(doc, r.Created[i]); err != nil {
				return nil, nil, fmt.Errorf("remove %s: %w", r.Created[i], err)
			}
		}
	}
	return format(doc), kept, nil
}

// isEmpty reports whether v is an empty object or array.
func isEmpty(v gjson.Result) bool {
	return (v.IsObject() && len(v.Map()) == 0) || (v.IsArray() && len(v.Array()) == 0)
}

// existsIn reports whether path exists in doc.
func existsIn(doc []byte, path string) bool {
	return len(doc) > 0 && gjson.GetBytes(doc, path).Exists()
}
