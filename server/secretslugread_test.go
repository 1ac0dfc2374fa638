package server_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// TestSecretSlugReadLogRedacted reads, through every route that names a
// repo, a repo whose slug holds a secret that the default rules flag: the
// server's log never holds the slug, and its access lines name the repo
// redacted as a refused write's line does. A clean slug is logged as is.
func TestSecretSlugReadLogRedacted(t *testing.T) {
	sc, err := scan.New(scan.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedbuf.Buffer
	s := servertest.Start(t, servertest.WithScanner(sc), servertest.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	secret := scantest.AWSKey()
	slug := "acme/" + secret
	inm := map[string]string{"If-None-Match": `"` + api.EmptyRepoChecksum + `"`}
	reads := []struct {
		name string
		req  req
	}{
		{"full pull", req{query: memQuery(slug)}},
		{"hash probe", req{query: memQuery(slug, api.ParamView, api.ViewHashes)}},
		{"change wait", req{query: memQuery(slug, api.ParamView, api.ViewHashes, api.ParamWait, "1"), headers: inm}},
		{"history", req{path: api.HistoryPath, query: memQuery(slug)}},
		{"proposals", req{path: api.ProposalsPath, query: memQuery(slug)}},
		{"clean slug", req{query: memQuery(repo)}},
	}
	for _, rd := range reads {
		rd.req.token = s.Token
		if r := do(t, s.URL, rd.req); r.status >= http.StatusInternalServerError {
			t.Fatalf("%s = %d %s, want an answer", rd.name, r.status, r.body)
		}
	}
	text := logs.String()
	if strings.Contains(text, secret) {
		t.Errorf("log of reads of a repo whose slug holds a secret holds the slug:\n%s", text)
	}
	if n := strings.Count(text, `"repo":"`+api.RedactKey(slug)+`"`); n != len(reads)-1 {
		t.Errorf("log names the repo redacted %d times, want %d:\n%s", n, len(reads)-1, text)
	}
	if !strings.Contains(text, `"repo":"`+repo+`"`) {
		t.Errorf("log does not name the clean repo %s as is:\n%s", repo, text)
	}
}
