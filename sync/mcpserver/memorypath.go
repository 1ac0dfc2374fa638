package mcpserver

import (
	"fmt"
	"strings"

	"github.com/teammemd/teammemd/server/api"
)

// memoriesRoot is where the memory tool's paths live; it maps onto the
// team directory.
const memoriesRoot = "/memories"

// memoryKey maps a memory tool path onto a key of the team directory: ""
// for /memories itself, else a key the protocol's key rules accept (no
// dot segment, no traversal), without a trailing slash.
func memoryKey(p string) (string, error) {
	rest, ok := strings.CutPrefix(p, memoriesRoot)
	if !ok || rest != "" && rest[0] != '/' {
		return "", toolErrorf("Path must start with %s, got: %s", memoriesRoot, p)
	}
	rest = strings.TrimSuffix(strings.TrimPrefix(rest, "/"), "/")
	if rest == "" {
		return "", nil
	}
	if problem := api.KeyProblem(rest, api.Limits{}); problem != "" {
		return "", toolErrorf("Path %s is not a valid memory path: %s", p, problem)
	}
	return rest, nil
}

// memoryPath is the memory tool's path of key.
func memoryPath(key string) string {
	if key == "" {
		return memoriesRoot
	}
	return memoriesRoot + "/" + key
}

// humanSize writes a size as the memory tool does: 0B, 512B, 4.0K, 1.5M.
func humanSize(n int64) string {
	units := []string{"B", "K", "M", "G"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d%s", int64(v), units[i])
	}
	return fmt.Sprintf("%.1f%s", v, units[i])
}

// numbered writes lines, the first numbered from, as the memory tool
// shows a file: the number right-aligned in six columns, a tab, the line.
func numbered(lines []string, from int) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\t%s", from+i, l)
	}
	return b.String()
}

// toolError is a message of the memory tool, worded as Anthropic's own
// implementation words it, which models know: a sentence, capitalized.
type toolError string

func (e toolError) Error() string { return string(e) }

func toolErrorf(format string, args ...any) error { return toolError(fmt.Sprintf(format, args...)) }
