package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// settingServer is a "teammemd serve" run in this process from a config
// file that sets one [server] setting, with two tokens made before it
// started.
type settingServer struct {
	base       string // http:// or https:// and the address it logged
	addr       string
	data       string // data_dir of the config
	store      string // store of the config, when set
	pool       *x509.CertPool
	client     *http.Client
	alice, bob string // tokens on every repo
}

// settingCase is one [server] setting (or a few that only work together)
// and how to see it in the running server.
type settingCase struct {
	keys []string // the keys below [server] that the case proves
	toml string   // below [server] listen and data_dir
	// prepare, when set, makes what the config names (files, a database)
	// and returns more of the [server] section.
	prepare func(t *testing.T, s *settingServer) string
	probe   func(t *testing.T, s *settingServer)
}

const settingsRepo = "acme/app"

// settingCases cover every key of server.Config: each sets a value other
// than the default and finds it in how the server answers.
func settingCases() []settingCase {
	return append([]settingCase{
		{keys: []string{"listen", "data_dir"}, probe: probeListenAndData},
		{keys: []string{"organization_id"}, toml: "organization_id = \"acme-settings\"\n", probe: probeOrganization},
		{keys: []string{"scan_secrets"}, toml: "scan_secrets = false\n", probe: probeScanOff},
		{keys: []string{"mcp"}, toml: "mcp = false\n", probe: probeMCPOff},
		{keys: []string{"tls_cert", "tls_key"}, prepare: prepareTLS, probe: probeTLS},
		{keys: []string{"store"}, prepare: preparePostgres, probe: probePostgres},
		{keys: []string{"max_waiters"}, toml: "max_waiters = 1\n", probe: probeWaitCap("bob", http.StatusServiceUnavailable)},
		{keys: []string{"max_waiters_per_subject"}, toml: "max_waiters_per_subject = 1\n", probe: probeWaitCap("alice", http.StatusTooManyRequests)},
		{keys: []string{"limits.max_entry_bytes"}, toml: "[server.limits]\nmax_entry_bytes = 10\n",
			probe: probePut(map[string]string{"a.md": "eleven byte"}, http.StatusRequestEntityTooLarge, api.CodeEntryTooLarge)},
		{keys: []string{"limits.max_body_bytes"}, toml: "[server.limits]\nmax_entry_bytes = 50\nmax_body_bytes = 100\n",
			probe: probePut(map[string]string{"a.md": strings.Repeat("a", 40), "b.md": strings.Repeat("b", 40), "c.md": strings.Repeat("c", 40)},
				http.StatusRequestEntityTooLarge, api.CodeBodyTooLarge)},
		{keys: []string{"limits.max_entries"}, toml: "[server.limits]\nmax_entries = 1\n",
			probe: probePut(map[string]string{"a.md": "a", "b.md": "b"}, http.StatusRequestEntityTooLarge, api.CodeTooManyEntries)},
		{keys: []string{"limits.max_key_bytes"}, toml: "[server.limits]\nmax_key_bytes = 5\n",
			probe: probePut(map[string]string{"abcdef.md": "a"}, http.StatusBadRequest, api.CodeInvalidKey)},
		{keys: []string{"limits.max_key_segments"}, toml: "[server.limits]\nmax_key_segments = 1\n",
			probe: probePut(map[string]string{"a/b.md": "a"}, http.StatusBadRequest, api.CodeInvalidKey)},
		{keys: []string{"limits.max_wait"}, toml: "[server.limits]\nmax_wait = \"1s\"\n", probe: probeMaxWait},
		{keys: []string{"limits.max_history_page_bytes"}, toml: "[server.limits]\nmax_history_page_bytes = 5\n", probe: probeHistoryPageBytes},
		{keys: []string{"rate_limit.requests_per_second", "rate_limit.burst"},
			toml: "[server.rate_limit]\nrequests_per_second = 0.01\nburst = 2\n", probe: probeRateLimit},
		{keys: []string{"rate_limit.failed_auth_per_second", "rate_limit.failed_auth_burst"},
			toml: "[server.rate_limit]\nfailed_auth_per_second = 0.01\nfailed_auth_burst = 2\n", probe: probeFailedAuthLimit},
		{keys: []string{"trusted_proxies"},
			toml:  "trusted_proxies = [\"127.0.0.1\", \"::1\"]\n[server.rate_limit]\nfailed_auth_per_second = 0.01\nfailed_auth_burst = 1\n",
			probe: probeTrustedProxies},
		{keys: []string{"history.keep_versions", "history.prune_interval"},
			toml: "[server.history]\nkeep_versions = 1\nprune_interval = \"1s\"\n", probe: probePruned(true)},
		{keys: []string{"history.keep_for"},
			toml: "[server.history]\nkeep_versions = 1\nkeep_for = \"1h\"\nprune_interval = \"1s\"\n", probe: probePruned(false)},
		{keys: []string{"deletions.max_per_repo"}, toml: "[server.deletions]\nmax_per_repo = 1\n", probe: probeDeletionCap},
		{keys: []string{"deletions.keep_for"}, toml: "[server.deletions]\nkeep_for = \"1h\"\n", prepare: prepareOldDeletion, probe: probeOldDeletionCompacted},
		{keys: []string{"repo"}, toml: "[[server.repo]]\nname = \"acme/*\"\nreview = \"required\"\n", probe: probeReview},
		{keys: []string{"auth"}, toml: "[server.auth]\ntokens = false\n[server.auth.github]\nenabled = true\n", probe: probeAuth},
	}, append(uiSettingCases(), personalSettingCases()...)...)
}

// Every [server] setting in the config file reaches the running server:
// each case sets one and sees the server behave by it.
func TestServeSettingsReachServer(t *testing.T) {
	cases := settingCases()
	for _, c := range cases {
		t.Run(strings.Join(c.keys, ","), func(t *testing.T) {
			s := startSettingServer(t, c)
			c.probe(t, s)
		})
	}
}

// The cases cover every key of server.Config, so a new setting needs a
// case before the test passes.
func TestServeSettingCasesCoverConfig(t *testing.T) {
	var covered []string
	for _, c := range settingCases() {
		covered = append(covered, c.keys...)
	}
	keys := configKeys(reflect.TypeFor[server.Config](), "")
	for _, k := range keys {
		if !slices.Contains(covered, k) {
			t.Errorf("[server] %s has no case in settingCases", k)
		}
	}
	for _, k := range covered {
		if !slices.Contains(keys, k) {
			t.Errorf("settingCases covers %s, which is no key of [server]", k)
		}
	}
}

// configKeys lists the TOML keys of a config struct, dotted below prefix.
// [server.auth] counts as one key: it is handed whole to package auth,
// whose own tests cover its keys.
func configKeys(typ reflect.Type, prefix string) []string {
	var keys []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		key := prefix + name
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[time.Duration]() && f.Type != reflect.TypeFor[auth.Config]() {
			keys = append(keys, configKeys(f.Type, key+".")...)
			continue
		}
		keys = append(keys, key)
	}
	return keys
}

// startSettingServer makes the tokens, then runs serve with --config alone,
// so the file's listen and data_dir are the ones in use.
func startSettingServer(t *testing.T, c settingCase) *settingServer {
	t.Helper()
	isolateConfig(t)
	s := &settingServer{data: t.TempDir(), client: &http.Client{Timeout: 30 * time.Second}}
	var extra string
	if c.prepare != nil {
		extra = c.prepare(t, s)
	}
	where := []string{"--data", s.data}
	if s.store != "" {
		where = []string{"--store", s.store}
	}
	s.alice, s.bob = settingToken(t, where, "alice"), settingToken(t, where, "bob")
	config := fmt.Sprintf("[server]\nlisten = \"127.0.0.1:0\"\ndata_dir = %q\n%s%s", s.data, extra, c.toml)
	ctx, cancel := context.WithCancel(context.Background())
	logs := &lineWriter{lines: make(chan string, 1000)}
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, []string{"serve", "--config", writeConfig(t, config)}, io.Discard, logs) }()
	s.addr, _ = awaitLog(t, logs.lines, errc, "listening")["addr"].(string)
	s.base = "http://" + s.addr
	if s.pool != nil {
		s.base = "https://" + s.addr
		s.client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.pool}}
	}
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("serve after cancel = %v, want nil", err)
		}
	})
	return s
}

func settingToken(t *testing.T, where []string, subject string) string {
	t.Helper()
	args := append(append([]string{"token", "create"}, where...), "--subject", subject, "--repos", "**")
	stdout, stderr, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("token create = exit %d, stderr %q", code, stderr)
	}
	return strings.TrimSpace(stdout)
}

// answer is a response read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// call sends a request to the server with token and reads the answer.
func (s *settingServer) call(t *testing.T, method, query, token string, body any, header map[string]string) answer {
	t.Helper()
	a, err := s.do(method, query, token, body, header)
	if err != nil {
		t.Fatalf("%s %s: %v", method, query, err)
	}
	return a
}

// do is call for a goroutine of its own: it returns the error.
func (s *settingServer) do(method, query, token string, body any, header map[string]string) (answer, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.base+query, rd)
	if err != nil {
		return answer{}, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, got}, err
}

func repoQuery(extra string) string {
	return api.Path + "?repo=" + url.QueryEscape(settingsRepo) + extra
}

func (s *settingServer) put(t *testing.T, token string, entries map[string]string) answer {
	t.Helper()
	return s.call(t, http.MethodPut, repoQuery(""), token, api.PutRequest{Entries: entries}, nil)
}

// mustPut PUTs entries as alice and fails the test unless the server took
// them.
func (s *settingServer) mustPut(t *testing.T, entries map[string]string) api.PutResponse {
	t.Helper()
	a := s.put(t, s.alice, entries)
	var pr api.PutResponse
	if a.status != http.StatusOK || json.Unmarshal(a.body, &pr) != nil {
		t.Fatalf("PUT %v = %d %s, want 200", slices.Sorted(maps.Keys(entries)), a.status, a.body)
	}
	return pr
}

// metric reads one sample of /metrics by its name and labels, 0 when the
// server has not reported it yet.
func (s *settingServer) metric(t *testing.T, sample string) float64 {
	t.Helper()
	a := s.call(t, http.MethodGet, "/metrics", "", nil, nil)
	for line := range strings.Lines(string(a.body)) {
		if rest, ok := strings.CutPrefix(line, sample+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				t.Fatalf("/metrics %s: %v", sample, err)
			}
			return v
		}
	}
	return 0
}

// awaitMetric polls /metrics, for at most 30 s, until sample reaches min.
func (s *settingServer) awaitMetric(t *testing.T, sample string, min float64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for s.metric(t, sample) < min {
		if time.Now().After(deadline) {
			t.Fatalf("/metrics %s never reached %v", sample, min)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func probeListenAndData(t *testing.T, s *settingServer) {
	if s.addr == server.DefaultListen || !strings.HasPrefix(s.addr, "127.0.0.1:") {
		t.Errorf("serve listened on %s, want the file's 127.0.0.1:0 (a port of its own)", s.addr)
	}
	s.mustPut(t, map[string]string{"a.md": "a"})
	if _, err := os.Stat(filepath.Join(s.data, "teammemd.db")); err != nil {
		t.Errorf("database not in the file's data_dir: %v", err)
	}
}

func probeOrganization(t *testing.T, s *settingServer) {
	if got := s.mustPut(t, map[string]string{"a.md": "a"}).OrganizationID; got != "acme-settings" {
		t.Errorf("PUT organizationId = %q, want acme-settings", got)
	}
}

func probeScanOff(t *testing.T, s *settingServer) {
	s.mustPut(t, map[string]string{"a.md": "aws_access_key_id = " + "AKIA" + "Z7QW3RTY5UIO2PLK"})
}

func probeMCPOff(t *testing.T, s *settingServer) {
	resp, err := s.client.Post(s.base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /mcp = %d, want 404", resp.StatusCode)
	}
}

func prepareTLS(t *testing.T, s *settingServer) string {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	_, s.pool = testCert(t, cert, key)
	return fmt.Sprintf("tls_cert = %q\ntls_key = %q\n", cert, key)
}

func probeTLS(t *testing.T, s *settingServer) {
	if !strings.HasPrefix(s.base, "https://") {
		t.Fatalf("base %s, want https", s.base)
	}
	s.mustPut(t, map[string]string{"a.md": "a"})
}

func preparePostgres(t *testing.T, s *settingServer) string {
	s.store = pgtest.Database(t)
	return fmt.Sprintf("store = %q\n", s.store)
}

func probePostgres(t *testing.T, s *settingServer) {
	s.mustPut(t, map[string]string{"a.md": "a"})
	if _, err := os.Stat(filepath.Join(s.data, "teammemd.db")); err == nil {
		t.Errorf("serve with store set made a SQLite database in data_dir, want the data in PostgreSQL")
	}
}

// probeWaitCap holds one change wait of alice's, then asks for another as
// who: it gets want at once, where without the cap it would be held and
// end by 304.
func probeWaitCap(who string, want int) func(t *testing.T, s *settingServer) {
	return func(t *testing.T, s *settingServer) {
		held := make(chan error, 1)
		go func() {
			a, err := s.do(http.MethodGet, waitQuery(30), s.alice, nil, emptyRepo)
			if err == nil && a.status != http.StatusOK {
				err = fmt.Errorf("status %d, want 200 once the repo changes", a.status)
			}
			held <- err
		}()
		s.awaitMetric(t, "teammemd_change_waiters", 1)
		token := map[string]string{"alice": s.alice, "bob": s.bob}[who]
		if got := s.call(t, http.MethodGet, waitQuery(2), token, nil, emptyRepo); got.status != want || got.header.Get("Retry-After") == "" {
			t.Errorf("a second change wait, by %s = %d Retry-After %q, want %d with Retry-After", who, got.status, got.header.Get("Retry-After"), want)
		}
		s.mustPut(t, map[string]string{"a.md": "a"})
		if err := <-held; err != nil {
			t.Errorf("the held change wait: %v", err)
		}
	}
}

// emptyRepo is the If-None-Match of a change wait on a repo with nothing in
// it.
var emptyRepo = map[string]string{"If-None-Match": api.ETag(api.EmptyRepoChecksum)}

// waitQuery asks for a change wait of up to secs seconds.
func waitQuery(secs int) string { return repoQuery("&view=hashes&wait=" + strconv.Itoa(secs)) }

// probePut PUTs entries as alice and wants the refusal status and code.
func probePut(entries map[string]string, status int, code string) func(t *testing.T, s *settingServer) {
	return func(t *testing.T, s *settingServer) {
		a := s.put(t, s.alice, entries)
		if got := api.ParseError(a.status, a.body); a.status != status || got.Code != code {
			t.Errorf("PUT %v = %d %s, want %d %s", slices.Sorted(maps.Keys(entries)), a.status, got.Code, status, code)
		}
	}
}

// probeReview PUTs to a repo the config holds under review: the PUT is
// taken as a proposal and the repo stays unwritten.
func probeReview(t *testing.T, s *settingServer) {
	a := s.put(t, s.alice, map[string]string{"a.md": "a"})
	var pr api.PutResponse
	if a.status != http.StatusOK || json.Unmarshal(a.body, &pr) != nil || pr.Review == nil || a.header.Get(api.ProposalHeader) == "" {
		t.Fatalf("PUT to a repo under review = %d %s, want 200 with a proposal", a.status, a.body)
	}
	if got := s.call(t, http.MethodGet, repoQuery(""), s.alice, nil, nil); got.status != http.StatusNotFound {
		t.Errorf("GET after the proposal = %d, want 404: nothing stored", got.status)
	}
}

// probeMaxWait asks for a 60 s change wait: it ends by 304 after max_wait
// (1 s and its jitter), well within the client's 30 s timeout, where the
// default max_wait would hold it for a minute.
func probeMaxWait(t *testing.T, s *settingServer) {
	if got := s.call(t, http.MethodGet, waitQuery(60), s.alice, nil, emptyRepo); got.status != http.StatusNotModified {
		t.Errorf("a 60 s change wait = %d, want 304 after max_wait", got.status)
	}
}

// probeHistoryPageBytes writes a.md twice, 4 bytes each: a page of its
// history with content holds one revision, where the default bound holds
// both.
func probeHistoryPageBytes(t *testing.T, s *settingServer) {
	for _, v := range []string{"one\n", "two\n"} {
		s.mustPut(t, map[string]string{"a.md": v})
	}
	a := s.call(t, http.MethodGet, api.HistoryPath+"?repo="+url.QueryEscape(settingsRepo)+"&key=a.md", s.alice, nil, nil)
	var h api.HistoryResponse
	if a.status != http.StatusOK || json.Unmarshal(a.body, &h) != nil {
		t.Fatalf("history of a.md = %d %s, want 200", a.status, a.body)
	}
	if len(h.Revisions) != 1 || h.NextCursor == "" {
		t.Errorf("history page of a.md = %d revisions, next %q; want 1 and a cursor", len(h.Revisions), h.NextCursor)
	}
}

// probeRateLimit spends the burst of 2, then the third request waits for a
// token that comes at 0.01 per second: Retry-After about 100 s.
func probeRateLimit(t *testing.T, s *settingServer) {
	for i := range 2 {
		if a := s.call(t, http.MethodGet, repoQuery(""), s.alice, nil, nil); a.status == http.StatusTooManyRequests {
			t.Fatalf("request %d of a burst of 2 = 429, want it served", i+1)
		}
	}
	a := s.call(t, http.MethodGet, repoQuery(""), s.alice, nil, nil)
	retry, _ := strconv.Atoi(a.header.Get("Retry-After"))
	if a.status != http.StatusTooManyRequests || retry < 90 {
		t.Errorf("third request = %d Retry-After %q, want 429 and about 100 s", a.status, a.header.Get("Retry-After"))
	}
}

// probeFailedAuthLimit sends a bad token three times: the address's budget
// of two failures is spent, and the third gets 429 to retry in about 100 s,
// as does a good token from that address then.
func probeFailedAuthLimit(t *testing.T, s *settingServer) {
	for i := range 2 {
		if a := s.call(t, http.MethodGet, repoQuery(""), "tmd_bad", nil, nil); a.status != http.StatusUnauthorized {
			t.Fatalf("bad token %d of a budget of 2 = %d, want 401", i+1, a.status)
		}
	}
	for _, token := range []string{"tmd_bad", s.alice} {
		a := s.call(t, http.MethodGet, repoQuery(""), token, nil, nil)
		retry, _ := strconv.Atoi(a.header.Get("Retry-After"))
		if a.status != http.StatusTooManyRequests || retry < 90 {
			t.Errorf("request after the budget = %d Retry-After %q, want 429 and about 100 s", a.status, a.header.Get("Retry-After"))
		}
	}
}

// probeTrustedProxies sends bad tokens through a proxy on loopback that
// names two clients in X-Forwarded-For: each has its own budget of one
// failure.
func probeTrustedProxies(t *testing.T, s *settingServer) {
	for _, c := range []struct {
		client string
		want   int
	}{{"203.0.113.1", http.StatusUnauthorized}, {"203.0.113.1", http.StatusTooManyRequests}, {"203.0.113.2", http.StatusUnauthorized}} {
		a := s.call(t, http.MethodGet, repoQuery(""), "tmd_bad", nil, map[string]string{"X-Forwarded-For": c.client})
		if a.status != c.want {
			t.Errorf("bad token from %s = %d, want %d", c.client, a.status, c.want)
		}
	}
}

// probePruned writes three versions of a.md and waits for pruning passes:
// with keep_for unset the first version's content goes; with keep_for 1h
// it stays after two whole passes.
func probePruned(gone bool) func(t *testing.T, s *settingServer) {
	const passes = `teammemd_store_operation_duration_seconds_count{op="prune_history"}`
	return func(t *testing.T, s *settingServer) {
		for _, v := range []string{"one", "two", "three"} {
			s.mustPut(t, map[string]string{"a.md": v})
		}
		if gone {
			deadline := time.Now().Add(30 * time.Second)
			for s.firstContent(t) != nil {
				if time.Now().After(deadline) {
					t.Fatal("version 1 of a.md still has its content after 30 s, want it pruned every 1s down to 1 version")
				}
				time.Sleep(50 * time.Millisecond)
			}
			return
		}
		s.awaitMetric(t, passes, s.metric(t, passes)+2)
		if got := s.firstContent(t); got == nil || *got != "one" {
			t.Errorf("version 1 of a.md after two pruning passes = %v, want its content kept by keep_for", got)
		}
	}
}

// firstContent is the content of version 1 of a.md in its history.
func (s *settingServer) firstContent(t *testing.T) *string {
	t.Helper()
	a := s.call(t, http.MethodGet, api.HistoryPath+"?repo="+url.QueryEscape(settingsRepo)+"&key=a.md", s.alice, nil, nil)
	var h api.HistoryResponse
	if a.status != http.StatusOK || json.Unmarshal(a.body, &h) != nil {
		t.Fatalf("history of a.md = %d %s, want 200", a.status, a.body)
	}
	for _, r := range h.Revisions {
		if r.Version == 1 {
			return r.Content
		}
	}
	t.Fatalf("history of a.md has no version 1: %s", a.body)
	return nil
}

// probeAuth: with static tokens off and GitHub on, the server says so and
// refuses a token.
func probeAuth(t *testing.T, s *settingServer) {
	a := s.call(t, http.MethodGet, api.DiscoveryPath, "", nil, nil)
	var d api.Discovery
	if err := json.Unmarshal(a.body, &d); err != nil || !slices.Equal(d.AuthModes, []string{"github"}) {
		t.Errorf("discovery auth modes = %q (%v), want [github]", d.AuthModes, err)
	}
	if a := s.put(t, s.alice, map[string]string{"a.md": "a"}); a.status != http.StatusUnauthorized {
		t.Errorf("PUT with a static token while tokens are off = %d, want 401", a.status)
	}
}

// hashes reads the repo's hash probe as alice.
func (s *settingServer) hashes(t *testing.T) api.HashesResponse {
	t.Helper()
	a := s.call(t, http.MethodGet, repoQuery("&view=hashes"), s.alice, nil, nil)
	var h api.HashesResponse
	if a.status != http.StatusOK || json.Unmarshal(a.body, &h) != nil {
		t.Fatalf("GET hashes = %d %s, want 200", a.status, a.body)
	}
	return h
}

// probeDeletionCap deletes two notes: with one tombstone kept per repo, the
// second deletion compacts the first.
func probeDeletionCap(t *testing.T, s *settingServer) {
	s.mustPut(t, map[string]string{"a.md": "a", "b.md": "b"})
	var last api.PutResponse
	for _, k := range []string{"a.md", "b.md"} {
		a := s.call(t, http.MethodPut, repoQuery(""), s.alice, api.PutRequest{Entries: map[string]string{}, SoftDeleteKeys: []string{k}}, nil)
		if a.status != http.StatusOK || json.Unmarshal(a.body, &last) != nil {
			t.Fatalf("PUT deleting %s = %d %s, want 200", k, a.status, a.body)
		}
	}
	h := s.hashes(t)
	if got := slices.Sorted(maps.Keys(h.DeletedEntries)); !slices.Equal(got, []string{"b.md"}) || h.CompactedThrough != last.Version {
		t.Errorf("hashes after two deletions = deleted %v compacted through %d, want [b.md] through %d", got, h.CompactedThrough, last.Version)
	}
}

// prepareOldDeletion writes, into the data directory before serve starts,
// a repo with a note deleted two hours ago.
func prepareOldDeletion(t *testing.T, s *settingServer) string {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(s.data, sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	then := time.Now().Add(-2 * time.Hour)
	for _, w := range []store.Write{{Entries: map[string]string{"old.md": "old"}}, {Deletes: []string{"old.md"}}} {
		w.Repo, w.Subject, w.Time = settingsRepo, "ann", then
		if _, err := st.Apply(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	return ""
}

// probeOldDeletionCompacted writes a note: the write drops the tombstone
// older than keep_for, which the default of 90 days would keep.
func probeOldDeletionCompacted(t *testing.T, s *settingServer) {
	pr := s.mustPut(t, map[string]string{"a.md": "a"})
	if h := s.hashes(t); len(h.DeletedEntries) != 0 || h.CompactedThrough != pr.Version {
		t.Errorf("hashes after a write = deleted %v compacted through %d, want none through %d", h.DeletedEntries, h.CompactedThrough, pr.Version)
	}
}
