package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/sync/memindex"
)

type listIn struct {
	Repo   string `json:"repo,omitempty" jsonschema:"repo slug such as acme/app; default: the repo of the client's working directory"`
	Prefix string `json:"prefix,omitempty" jsonschema:"list only the notes whose key starts with this, such as a directory: db/"`
	Depth  int    `json:"depth,omitempty" jsonschema:"list notes at most this many path segments below the prefix; 0 lists all"`
}

type listOut struct {
	Repo  string     `json:"repo"`
	Dir   string     `json:"dir,omitempty" jsonschema:"the team directory on this machine; absent on a server"`
	Notes []noteInfo `json:"notes"`
	Dirs  []dirInfo  `json:"dirs,omitempty" jsonschema:"directories deeper than depth, with how many notes each holds"`
}

type noteInfo struct {
	Key         string    `json:"key"`
	Name        string    `json:"name,omitempty"`
	Description string    `json:"description,omitempty"`
	Size        int64     `json:"size"`
	Age         string    `json:"age" jsonschema:"time since the note last changed on this machine, such as 3h or 12d"`
	Modified    time.Time `json:"modified"`
	SHA256      string    `json:"sha256"`
	URI         string    `json:"uri" jsonschema:"the note as an MCP resource"`
}

type dirInfo struct {
	Path  string `json:"path"`
	Notes int    `json:"notes"`
}

func (t *tools) list(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
	sp, err := t.b.Space(ctx, req, in.Repo)
	if err != nil {
		return nil, listOut{}, err
	}
	if in.Depth < 0 {
		return nil, listOut{}, fmt.Errorf("depth %d: want 0 or more", in.Depth)
	}
	out := listOut{Repo: sp.Repo(), Dir: sp.Dir(), Notes: []noteInfo{}}
	dirs := map[string]int{}
	now := t.now()
	for _, n := range sp.Index().Notes(in.Prefix) {
		if d, deep := deeper(n.Key, in.Prefix, in.Depth); deep {
			dirs[d]++
			continue
		}
		out.Notes = append(out.Notes, infoOf(sp, n, now))
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		out.Dirs = append(out.Dirs, dirInfo{Path: d, Notes: dirs[d]})
	}
	return nil, out, nil
}

// deeper reports whether key lies more than depth segments below prefix,
// and then the directory at that depth, with a trailing slash.
func deeper(key, prefix string, depth int) (string, bool) {
	if depth == 0 {
		return "", false
	}
	rest, lead := key[len(prefix):], ""
	if strings.HasPrefix(rest, "/") {
		rest, lead = rest[1:], "/"
	}
	segs := strings.Split(rest, "/")
	if len(segs) <= depth {
		return "", false
	}
	return prefix + lead + strings.Join(segs[:depth], "/") + "/", true
}

func infoOf(sp Space, n memindex.Note, now time.Time) noteInfo {
	return noteInfo{Key: n.Key, Name: n.Name, Description: n.Description, Size: n.Size,
		Age: age(now.Sub(n.ModTime)), Modified: n.ModTime.UTC(), SHA256: n.Sum, URI: noteURI(sp.Repo(), n.Key)}
}

// age says how long ago d was in one unit: 40s, 12m, 3h, 9d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}
