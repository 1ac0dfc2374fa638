package sqlite

import "github.com/teammemd/teammemd/server/store"

// lineList is a state's lines as the input of its repo checksum.
type lineList []entryLine

func (l lineList) Len() int { return len(l) }

func (l lineList) Line(i int) (key, sum string, live bool) { return l[i].key, l[i].sum, l[i].live() }

// sumLines sets next's checksum and its saved hash states. prev is the
// state next was built from; next's lines before unchanged are prev's.
func sumLines(next, prev *repoState, unchanged int) error {
	sum, marks, err := store.SumLines(lineList(next.lines), prev.marks, unchanged)
	if err != nil {
		return err
	}
	next.checksum, next.marks = sum, marks
	return nil
}
