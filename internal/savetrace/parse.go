package savetrace

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Event is one parsed mark.
type Event struct {
	At     time.Time
	Pid    int
	Step   string
	Detail string
}

// Parse reads the marks of a trace file, in file order.
func Parse(r io.Reader) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		ev, err := parseLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("save trace line %d: %w", n, err)
		}
		out = append(out, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read save trace: %w", err)
	}
	return out, nil
}

// parseLine parses "<unix ns> <pid> <step> <detail>"; detail may be
// empty or hold spaces.
func parseLine(line string) (Event, error) {
	f := strings.SplitN(line, " ", 4)
	if len(f) < 3 {
		return Event{}, fmt.Errorf("want \"<ns> <pid> <step> <detail>\", got %q", line)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return Event{}, fmt.Errorf("time: %w", err)
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		return Event{}, fmt.Errorf("pid: %w", err)
	}
	ev := Event{At: time.Unix(0, ns), Pid: pid, Step: f[2]}
	if len(f) == 4 {
		ev.Detail = f[3]
	}
	return ev, nil
}
