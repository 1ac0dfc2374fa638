package crashtest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, for the integrity check

	"github.com/teammemd/teammemd/server/api"
)

// integrityCheck runs PRAGMA integrity_check on the database file and
// returns its complaints; none when it answers "ok".
func integrityCheck(ctx context.Context, path string) ([]string, error) {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return nil, fmt.Errorf("integrity check of %s: %w", path, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, fmt.Errorf("integrity check of %s: %w", path, err)
		}
		if line != "ok" {
			out = append(out, line)
		}
	}
	return out, rows.Err()
}

// revision is one key's revision as the history lists it.
type revision struct {
	key, sum string
	version  int64
}

// repoView is what the server shows of one repo after a restart.
type repoView struct {
	version int64
	live    map[string]string           // key -> entry checksum of the current value
	byKey   map[string]map[int64]string // key -> version -> checksum
	byVer   map[int64][]revision        // version -> the revisions written at it
}

// audit checks one repo after a restart against every PUT sent to it:
// each acknowledged PUT is in the history at its version, every version
// holds all of one PUT's entries and nothing else, and the current state
// is the newest revision of each key.
func audit(repo string, v repoView, puts []put) []string {
	var bad []string
	bySum := map[string]put{}
	for _, p := range puts {
		for _, sum := range p.sums {
			bySum[sum] = p
		}
		if p.outcome == acked {
			bad = append(bad, checkAcked(v, p)...)
		}
	}
	for _, ver := range slices.Sorted(maps.Keys(v.byVer)) {
		bad = append(bad, checkVersion(repo, v, ver, bySum)...)
	}
	return append(bad, checkCurrent(v)...)
}

// checkAcked checks that an acknowledged PUT is in the history, whole, at
// the version it was acknowledged with.
func checkAcked(v repoView, p put) []string {
	var bad []string
	for _, key := range slices.Sorted(maps.Keys(p.sums)) {
		if got := v.byKey[key][p.version]; got != p.sums[key] {
			bad = append(bad, fmt.Sprintf("acknowledged write lost: %s was acknowledged at version %d, but the history of %s holds %s at that version",
				p, p.version, key, orNone(short(got))))
		}
	}
	if v.version < p.version {
		bad = append(bad, fmt.Sprintf("acknowledged write lost: %s was acknowledged at version %d, but %s is at version %d", p, p.version, p.repo, v.version))
	}
	return bad
}

// checkVersion checks that the revisions written at one version are all
// the entries of exactly one PUT.
func checkVersion(repo string, v repoView, ver int64, bySum map[string]put) []string {
	revs := v.byVer[ver]
	p, ok := bySum[revs[0].sum]
	if !ok || p.repo != repo {
		return []string{fmt.Sprintf("unknown write: %s at version %d of %s holds %s, which no writer sent there", revs[0].key, ver, repo, short(revs[0].sum))}
	}
	var bad []string
	for _, r := range revs {
		if p.sums[r.key] != r.sum {
			bad = append(bad, fmt.Sprintf("mixed PUTs: version %d of %s holds %s from %s and %s=%s from another PUT", ver, repo, revs[0].key, p, r.key, short(r.sum)))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(p.sums)) {
		if v.byKey[key][ver] != p.sums[key] {
			bad = append(bad, fmt.Sprintf("partial PUT visible: %s wrote %s at version %d, but %s has %s at that version",
				p, revs[0].key, ver, key, orNone(short(v.byKey[key][ver]))))
		}
	}
	return bad
}

// checkCurrent checks that the repo's version is its newest revision and
// each live value the newest revision of its key.
func checkCurrent(v repoView) []string {
	var bad []string
	newest := int64(0)
	for ver := range v.byVer {
		newest = max(newest, ver)
	}
	if newest != v.version {
		bad = append(bad, fmt.Sprintf("the repo is at version %d but its newest revision is at version %d", v.version, newest))
	}
	for key, vers := range v.byKey {
		last := slices.Max(slices.Collect(maps.Keys(vers)))
		if v.live[key] != vers[last] {
			bad = append(bad, fmt.Sprintf("%s holds %s, but its newest revision (version %d) is %s", key, orNone(short(v.live[key])), last, short(vers[last])))
		}
	}
	return bad
}

func short(sum string) string {
	if s, ok := strings.CutPrefix(sum, api.ChecksumPrefix); ok && len(s) > 12 {
		return "sha256:" + s[:12]
	}
	return sum
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// reader reads repos and histories from the server.
type reader struct {
	base, token string
	client      *http.Client
}

// view reads a repo's current state and every key's whole history.
func (rd reader) view(ctx context.Context, repo string) (repoView, error) {
	v := repoView{live: map[string]string{}, byKey: map[string]map[int64]string{}, byVer: map[int64][]revision{}}
	var h api.HashesResponse
	found, err := rd.get(ctx, api.Path+"?"+url.Values{api.ParamRepo: {repo}, api.ParamView: {api.ViewHashes}}.Encode(), &h)
	if err != nil || !found {
		return v, err
	}
	v.version, v.live = h.Version, h.EntryChecksums
	for _, key := range stormKeys {
		if err := rd.history(ctx, repo, key, &v); err != nil {
			return v, err
		}
	}
	return v, nil
}

// history adds every revision of key to v.
func (rd reader) history(ctx context.Context, repo, key string, v *repoView) error {
	cursor := ""
	for {
		q := url.Values{api.ParamRepo: {repo}, api.ParamKey: {key}, api.ParamLimit: {"500"}}
		if cursor != "" {
			q.Set(api.ParamCursor, cursor)
		}
		var page api.HistoryResponse
		found, err := rd.get(ctx, api.HistoryPath+"?"+q.Encode(), &page)
		if err != nil || !found {
			return err
		}
		for _, r := range page.Revisions {
			if v.byKey[key] == nil {
				v.byKey[key] = map[int64]string{}
			}
			v.byKey[key][r.Version] = r.Checksum
			v.byVer[r.Version] = append(v.byVer[r.Version], revision{key: key, sum: r.Checksum, version: r.Version})
		}
		if page.NextCursor == "" {
			return nil
		}
		cursor = page.NextCursor
	}
}

// get decodes a 200 answer into out; found is false on 404.
func (rd reader) get(ctx context.Context, pathQuery string, out any) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rd.base+pathQuery, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Authorization", "Bearer "+rd.token)
	resp, err := rd.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return false, fmt.Errorf("GET %s: %w", pathQuery, err)
	case resp.StatusCode == http.StatusNotFound:
		return false, nil
	case resp.StatusCode != http.StatusOK:
		return false, fmt.Errorf("GET %s: %d %s", pathQuery, resp.StatusCode, body)
	}
	return true, json.Unmarshal(body, out)
}
