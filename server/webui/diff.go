package webui

import "strings"

// The operations of a line diff.
const (
	opKeep   = " "
	opAdd    = "+"
	opRemove = "-"
)

// maxDiffEdits bounds the work of a diff: two versions further apart than
// this many line edits are shown as every old line removed and every new
// one added.
const maxDiffEdits = 4000

// diffLine is one line of a diff.
type diffLine struct {
	Op, Text string
}

// diffLines returns the shortest line diff from a to b (Myers' algorithm,
// within maxDiffEdits edits).
func diffLines(a, b string) []diffLine {
	x, y := splitLines(a), splitLines(b)
	trace, ok := myers(x, y)
	if !ok {
		return replaceAll(x, y)
	}
	return backtrack(trace, x, y)
}

// splitLines splits s into its lines, a last one without a newline
// included.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// myers runs the forward pass, keeping the furthest reach of each diagonal
// after each number of edits, and reports whether it reached the end
// within maxDiffEdits.
func myers(x, y []string) ([][]int, bool) {
	n, m := len(x), len(y)
	limit := min(n+m, maxDiffEdits)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var i int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				i = v[off+k+1]
			} else {
				i = v[off+k-1] + 1
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i, j = i+1, j+1
			}
			v[off+k] = i
			if i >= n && j >= m {
				return trace, true
			}
		}
	}
	return nil, false
}

// backtrack walks the trace back from the end, collecting the edits.
func backtrack(trace [][]int, x, y []string) []diffLine {
	off := (len(trace[0])-3)/2 + 1
	i, j := len(x), len(y)
	var rev []diffLine
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		k := i - j
		var prevK int
		if k == -d || k != d && v[off+k-1] < v[off+k+1] {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevI := v[off+prevK]
		prevJ := prevI - prevK
		for i > prevI && j > prevJ {
			i, j = i-1, j-1
			rev = append(rev, diffLine{opKeep, x[i]})
		}
		if d == 0 {
			break
		}
		if i == prevI {
			j--
			rev = append(rev, diffLine{opAdd, y[j]})
		} else {
			i--
			rev = append(rev, diffLine{opRemove, x[i]})
		}
	}
	for l, r := 0, len(rev)-1; l < r; l, r = l+1, r-1 {
		rev[l], rev[r] = rev[r], rev[l]
	}
	return rev
}

// replaceAll is the diff that removes every line of x and adds every line
// of y.
func replaceAll(x, y []string) []diffLine {
	out := make([]diffLine, 0, len(x)+len(y))
	for _, l := range x {
		out = append(out, diffLine{opRemove, l})
	}
	for _, l := range y {
		out = append(out, diffLine{opAdd, l})
	}
	return out
}
