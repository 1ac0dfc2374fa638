package personal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"filippo.io/age"
	"filippo.io/age/armor"
)

// sealedHeader starts every sealed note's plaintext.
const sealedHeader = "teammemd-personal/1\n"

// Note is one file of a personal lane, as its owner's machines see it.
type Note struct {
	Project string
	Path    string
	Content []byte
}

// ErrNoKey is returned by Open when none of the keys it was given can
// decrypt a value: it was sealed with another key.
var ErrNoKey = errors.New("sealed with a personal key this machine does not have")

// Seal encrypts note with k and returns its wire key and value. The value
// holds the project and path, so that another machine can tell where the
// file belongs; the wire key tells the server neither.
func (k *Key) Seal(n Note) (key, value string, err error) {
	if strings.ContainsAny(n.Project, "\n") || strings.ContainsAny(n.Path, "\n") {
		return "", "", errors.New("seal: a project or path holds a newline")
	}
	var buf bytes.Buffer
	buf.Grow(len(n.Content) + len(n.Content)/3 + 512)
	a := armor.NewWriter(&buf)
	w, err := age.Encrypt(a, k.id.Recipient())
	if err != nil {
		return "", "", fmt.Errorf("seal %s: %w", n.Path, err)
	}
	if err := writeNote(w, n); err != nil {
		return "", "", fmt.Errorf("seal %s: %w", n.Path, err)
	}
	if err := a.Close(); err != nil {
		return "", "", fmt.Errorf("seal %s: %w", n.Path, err)
	}
	return k.EntryKey(n.Project, n.Path), buf.String(), nil
}

func writeNote(w io.WriteCloser, n Note) error {
	for _, s := range []string{sealedHeader, n.Project, "\n", n.Path, "\n\n"} {
		if _, err := io.WriteString(w, s); err != nil {
			return err
		}
	}
	if _, err := w.Write(n.Content); err != nil {
		return err
	}
	return w.Close()
}

// Open decrypts the value stored under wire key with the first of keys
// that can, and checks that it belongs there: a value moved to another key
// or lane by whoever holds the database is an error, not a note. It
// returns the note and the key that opened it.
func Open(keys []*Key, wireKey, value string) (Note, *Key, error) {
	if len(keys) == 0 {
		return Note{}, nil, ErrNoKey
	}
	ids := make([]age.Identity, 0, len(keys))
	for _, k := range keys {
		ids = append(ids, k.id)
	}
	r, err := age.Decrypt(armor.NewReader(strings.NewReader(value)), ids...)
	var nomatch *age.NoIdentityMatchError
	if errors.As(err, &nomatch) {
		return Note{}, nil, ErrNoKey
	}
	if err != nil {
		return Note{}, nil, fmt.Errorf("open %s: %w", wireKey, err)
	}
	plain, err := io.ReadAll(r)
	if err != nil {
		return Note{}, nil, fmt.Errorf("open %s: %w", wireKey, err)
	}
	n, err := parseNote(plain)
	if err != nil {
		return Note{}, nil, fmt.Errorf("open %s: %w", wireKey, err)
	}
	for _, k := range keys {
		if k.EntryKey(n.Project, n.Path) == wireKey {
			return n, k, nil
		}
	}
	return Note{}, nil, fmt.Errorf("open %s: the note inside belongs under another key", wireKey)
}

func parseNote(plain []byte) (Note, error) {
	rest, ok := bytes.CutPrefix(plain, []byte(sealedHeader))
	if !ok {
		return Note{}, errors.New("not a teammemd personal note")
	}
	project, rest, ok1 := bytes.Cut(rest, []byte("\n"))
	path, rest, ok2 := bytes.Cut(rest, []byte("\n"))
	blank, content, ok3 := bytes.Cut(rest, []byte("\n"))
	if !ok1 || !ok2 || !ok3 || len(blank) != 0 || len(project) == 0 || len(path) == 0 {
		return Note{}, errors.New("a personal note's header is malformed")
	}
	return Note{Project: string(project), Path: string(path), Content: content}, nil
}
