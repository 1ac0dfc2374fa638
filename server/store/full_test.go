package store

import (
	"errors"
	"io"
	"testing"
)

// A refusal for a full storage makes the watch full; a write that
// succeeds clears it; an error of another kind leaves it as it was.
func TestFullWatchFollowsTheLastWrite(t *testing.T) {
	full := FullError(io.ErrShortWrite)
	var w FullWatch
	for i, step := range []struct {
		err  error
		want error
	}{
		{nil, nil},
		{ErrPrecondition, nil},
		{full, full},
		{ErrPrecondition, full},
		{errors.New("canceled"), full},
		{nil, nil},
	} {
		if got := w.Note(step.err); got != step.err {
			t.Fatalf("step %d: Note(%v) = %v, want its argument", i, step.err, got)
		}
		at, err := w.Full()
		if err != step.want || at.IsZero() != (step.want == nil) {
			t.Errorf("step %d: after Note(%v) Full() = %v, %v; want %v, with a time when not nil", i, step.err, at, err, step.want)
		}
	}
}

// FullError marks an error once and keeps the database's error inside.
func TestFullErrorWrapsOnce(t *testing.T) {
	err := FullError(io.ErrShortWrite)
	if !errors.Is(err, ErrFull) || !errors.Is(err, io.ErrShortWrite) {
		t.Fatalf("FullError(io.ErrShortWrite) = %v; want ErrFull around it", err)
	}
	if again := FullError(err); again != err {
		t.Errorf("FullError(FullError(e)) = %v, want FullError(e) as it is", again)
	}
}
