package fsio

import (
	"errors"
	"os"
	"sync"
)

// Spares holds files of one directory that a pull moved out of a note's
// way and judged to hold nothing of the user's, each under a temp name, to
// write the next pulled notes into instead of creating a file for each and
// removing the one it displaces. Some file systems make each new file cost
// more the more files were removed recently (ext4 without a journal looks
// past every inode freed in the last seconds when it allocates one), so a
// pull of a thousand notes paid for that a thousand times over.
//
// A spare is written over only when it is, by what fstat sees, the file
// a new temp file of the directory would be: a regular file with one
// link, the same owner and mode, and no extended attributes. Spares only
// ever hold notes' content the server holds or held, under temp names the
// sweep removes after a crash.
type Spares struct {
	dir   *os.Root
	mu    sync.Mutex
	names []string
	// fresh is what a new temp file of the directory is like, once one
	// was created; no spare is used before.
	fresh fileShape
}

// NewSpares returns an empty pool for dir.
func NewSpares(dir *os.Root) *Spares { return &Spares{dir: dir} }

// Keep moves aside, a file the caller judged to hold nothing of the user's
// from a read that no other process had it open for, not even for reading
// (ReadSettledAlone: a reader that opened the note before the swap must not
// read the next note's content through it), under a new temp name and
// keeps it for a later write. It reports false, leaving aside where it
// was, when the pool takes no spares here or the rename fails: the caller
// removes the file then. A nil pool keeps nothing.
func (p *Spares) Keep(aside string) bool {
	if p == nil || !sparesUsable {
		return false
	}
	name := TempPrefix + RandomHex() + ".tmp"
	if err := p.dir.Rename(aside, name); err != nil {
		return false
	}
	p.mu.Lock()
	p.names = append(p.names, name)
	p.mu.Unlock()
	return true
}

// CreateTemp writes data, durably, into a spare, or into a new temp file
// of mode perm as CreateTemp does, and returns its name. A spare that is
// no longer what a new temp file would be is removed, and the next one
// tried.
func (p *Spares) CreateTemp(data []byte, perm os.FileMode) (string, error) {
	for {
		name, ok := p.take()
		if !ok {
			break
		}
		if err := p.rewrite(name, data); err == nil {
			return name, nil
		}
		p.dir.Remove(name)
	}
	name, err := CreateTemp(p.dir, data, perm, nil)
	if err == nil && sparesUsable {
		p.learn(name)
	}
	return name, err
}

// Drain removes the spares left unused and returns the first error.
func (p *Spares) Drain() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	names := p.names
	p.names = nil
	p.mu.Unlock()
	var errs []error
	for _, n := range names {
		if err := p.dir.Remove(n); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// take returns a spare to write into, when there is one and a new temp
// file was seen to compare it with.
func (p *Spares) take() (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.names) == 0 || !p.fresh.known {
		return "", false
	}
	n := p.names[len(p.names)-1]
	p.names = p.names[:len(p.names)-1]
	return n, true
}

// learn records what the new temp file name is like, once.
func (p *Spares) learn(name string) {
	p.mu.Lock()
	known := p.fresh.known
	p.mu.Unlock()
	if known {
		return
	}
	f, err := p.dir.Open(name)
	if err != nil {
		return
	}
	defer f.Close()
	if shape, ok := shapeOf(f); ok {
		p.mu.Lock()
		p.fresh = shape
		p.mu.Unlock()
	}
}

// rewrite writes data over the spare name, in place, and makes it durable,
// once it checked the spare is what a new temp file would be.
func (p *Spares) rewrite(name string, data []byte) error {
	f, err := p.dir.OpenFile(name, os.O_WRONLY|noFollow, 0)
	if err != nil {
		return err
	}
	p.mu.Lock()
	want := p.fresh
	p.mu.Unlock()
	if shape, ok := shapeOf(f); !ok || shape != want {
		f.Close()
		return errors.New("spare is not like a new file")
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
