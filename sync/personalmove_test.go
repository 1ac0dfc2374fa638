package memsync

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	userNote    = "---\nname: me\ndescription: how I like my reviews\ntype: user\n---\nShort ones.\n"
	projectNote = "---\nname: build\ndescription: how the build runs\ntype: project\n---\nmake all\n"
)

// memoryDirs makes a Claude Code project's memory directory with its team
// directory, and returns both.
func memoryDirs(t *testing.T) (memory, team string) {
	t.Helper()
	memory = filepath.Join(t.TempDir(), "projects", "-src-app", "memory")
	team = filepath.Join(memory, "team")
	if err := os.MkdirAll(team, 0o700); err != nil {
		t.Fatal(err)
	}
	return memory, team
}

func writeNote(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// readOrNone is a file's content, or "<none>" when it does not exist.
func readOrNone(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "<none>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestMoveToPersonal(t *testing.T) {
	for _, key := range []string{"me.md", "people/me.md"} {
		memory, team := memoryDirs(t)
		writeNote(t, filepath.Join(team, key), userNote)
		got, err := MoveToPersonal(team, key)
		want := filepath.Join(memory, filepath.FromSlash(key))
		if err != nil || got != want {
			t.Fatalf("MoveToPersonal(%s) = %q, %v; want %q", key, got, err, want)
		}
		if s := readOrNone(t, want); s != userNote {
			t.Errorf("%s after the move = %q, want the note", want, s)
		}
		if s := readOrNone(t, filepath.Join(team, key)); s != "<none>" {
			t.Errorf("the team copy of %s is still there: %q", key, s)
		}
	}
}

func TestMoveToPersonalRefusesAnExistingTarget(t *testing.T) {
	memory, team := memoryDirs(t)
	writeNote(t, filepath.Join(team, "me.md"), userNote)
	other := strings.Replace(userNote, "Short ones.", "Long ones.", 1)
	writeNote(t, filepath.Join(memory, "me.md"), other)
	_, err := MoveToPersonal(team, "me.md")
	var te *TargetExistsError
	if !errors.As(err, &te) {
		t.Fatalf("MoveToPersonal onto another file = %v, want TargetExistsError", err)
	}
	for _, p := range []string{filepath.Join(team, "me.md"), filepath.Join(memory, "me.md")} {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("the error %q does not name %s", err, p)
		}
	}
	if readOrNone(t, filepath.Join(team, "me.md")) != userNote || readOrNone(t, filepath.Join(memory, "me.md")) != other {
		t.Error("a refused move changed a file")
	}
}

func TestMoveToPersonalDropsAnIdenticalTeamCopy(t *testing.T) {
	memory, team := memoryDirs(t)
	writeNote(t, filepath.Join(team, "me.md"), userNote)
	writeNote(t, filepath.Join(memory, "me.md"), userNote)
	if _, err := MoveToPersonal(team, "me.md"); err != nil {
		t.Fatalf("MoveToPersonal onto the same content: %v", err)
	}
	if readOrNone(t, filepath.Join(team, "me.md")) != "<none>" || readOrNone(t, filepath.Join(memory, "me.md")) != userNote {
		t.Error("the note is not in exactly one place, with its content")
	}
	entries, err := os.ReadDir(team)
	if err != nil || len(entries) != 0 {
		t.Errorf("the team directory keeps %v (%v), want it empty", entries, err)
	}
}

func TestMoveToPersonalWhenTheNoteChanges(t *testing.T) {
	for _, c := range []struct {
		name        string
		change      func(t *testing.T, team, memory string)
		wantErr     bool
		team, moved string
	}{
		{"edited, still of type user", func(t *testing.T, team, _ string) {
			writeNote(t, filepath.Join(team, "me.md"), userNote+"And kind.\n")
		}, false, "<none>", userNote + "And kind.\n"},
		{"edited into a team note", func(t *testing.T, team, _ string) {
			writeNote(t, filepath.Join(team, "me.md"), projectNote)
		}, true, projectNote, "<none>"},
		{"removed", func(t *testing.T, team, _ string) {
			if err := os.Remove(filepath.Join(team, "me.md")); err != nil {
				t.Fatal(err)
			}
		}, true, "<none>", "<none>"},
		{"target created", func(t *testing.T, _, memory string) {
			writeNote(t, filepath.Join(memory, "me.md"), projectNote)
		}, true, userNote, projectNote},
	} {
		t.Run(c.name, func(t *testing.T) {
			memory, team := memoryDirs(t)
			writeNote(t, filepath.Join(team, "me.md"), userNote)
			_, err := moveToPersonal(team, "me.md", func() { c.change(t, team, memory) })
			if (err != nil) != c.wantErr {
				t.Fatalf("moveToPersonal = %v, want error %v", err, c.wantErr)
			}
			if got := readOrNone(t, filepath.Join(team, "me.md")); got != c.team {
				t.Errorf("team/me.md = %q, want %q", got, c.team)
			}
			if got := readOrNone(t, filepath.Join(memory, "me.md")); got != c.moved {
				t.Errorf("me.md = %q, want %q", got, c.moved)
			}
		})
	}
}

func TestMoveToPersonalRefuses(t *testing.T) {
	memory, team := memoryDirs(t)
	writeNote(t, filepath.Join(team, "build.md"), projectNote)
	if _, err := MoveToPersonal(team, "build.md"); err == nil {
		t.Error("MoveToPersonal moved a project note")
	}
	if _, err := MoveToPersonal(team, "../x.md"); err == nil {
		t.Error("MoveToPersonal took a key out of the team directory")
	}
	elsewhere := filepath.Join(t.TempDir(), "team")
	writeNote(t, filepath.Join(elsewhere, "me.md"), userNote)
	if _, err := MoveToPersonal(elsewhere, "me.md"); !errors.Is(err, ErrNotPersonalLayout) {
		t.Errorf("MoveToPersonal outside memory/team/ = %v, want ErrNotPersonalLayout", err)
	}
	outside := t.TempDir()
	writeNote(t, filepath.Join(outside, "me.md"), userNote)
	if err := os.Symlink(outside, filepath.Join(team, "linked")); err != nil {
		t.Fatal(err)
	}
	if _, err := MoveToPersonal(team, "linked/me.md"); err == nil {
		t.Error("MoveToPersonal followed a link out of the team directory")
	}
	if readOrNone(t, filepath.Join(outside, "me.md")) != userNote || readOrNone(t, filepath.Join(memory, "linked", "me.md")) != "<none>" {
		t.Error("a refused move changed a file")
	}
}
