package scan

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"

	"github.com/teammemd/teammemd/server/api"
)

// namePath is the cache's path of a name scan: no file path holds a NUL,
// so a name's verdict never stands for a file's.
const namePath = "\x00name"

// Key scans a key's name, the path relative to the team directory as it
// goes on the wire, for secrets: a file named after an access key is as
// much a leak as one holding it. No path allowlist applies to a name. The
// findings have line 0 and the redacted key (api.RedactKey) as their File.
// The verdict is cached.
func (s *Scanner) Key(ctx context.Context, key string) ([]Finding, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ck := s.cache.key(namePath, []byte(key))
	if cached, ok := s.cache.get(ck); ok {
		return withFile(cached, api.RedactKey(key)), nil
	}
	found, err := s.detectName(ctx, key)
	if err != nil {
		return nil, err
	}
	s.cache.put(ck, found)
	return withFile(found, api.RedactKey(key)), nil
}

// detectName runs the rules over the forms of a name, one finding per rule.
func (s *Scanner) detectName(ctx context.Context, key string) ([]Finding, error) {
	gl := s.engine.detect(ctx, nameForms(key), "")
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Finding
	for _, f := range gl {
		out = append(out, Finding{RuleID: f.RuleID, Description: f.Description, Redacted: "[file name matches " + f.RuleID + "]"})
	}
	slices.SortFunc(out, func(a, b Finding) int { return cmp.Compare(a.RuleID, b.RuleID) })
	return slices.CompactFunc(out, func(a, b Finding) bool { return a.RuleID == b.RuleID }), nil
}

// nameForms is the text a name is scanned as, one form per line, so that
// the rules' keywords, boundaries and terminators find a secret wherever a
// name puts it: the key itself; then, without its .md or .txt extension
// (so a secret that ends the name ends a line), its segments one per line,
// joined by spaces (a keyword in a directory's name, the value in the
// file's), and split at underscores as well (no word boundary separates
// "creds_" from an access key).
func nameForms(key string) string {
	base := key
	if ext := path.Ext(key); ext == ".md" || ext == ".txt" {
		base = strings.TrimSuffix(key, ext)
	}
	return strings.Join([]string{
		key,
		strings.ReplaceAll(base, "/", "\n"),
		strings.ReplaceAll(base, "/", " "),
		strings.NewReplacer("/", "\n", "_", "\n").Replace(base),
	}, "\n")
}
