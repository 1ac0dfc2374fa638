package webui_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/webui"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  webui.Config
		want string // in the error; empty for none
	}{
		{"zero", webui.Config{}, ""},
		{"all set", webui.Config{StaleAfter: time.Hour, SessionTTL: time.Hour, Admins: []string{"a"}, URL: "https://memory.acme.com"}, ""},
		{"loopback http", webui.Config{URL: "http://127.0.0.1:8787"}, ""},
		{"negative stale", webui.Config{StaleAfter: -time.Hour}, "ui.stale_after"},
		{"short session", webui.Config{SessionTTL: time.Second}, "ui.session_ttl"},
		{"long session", webui.Config{SessionTTL: 1000 * time.Hour}, "ui.session_ttl"},
		{"empty admin", webui.Config{Admins: []string{""}}, "ui.admins"},
		{"plain http", webui.Config{URL: "http://memory.acme.com"}, "https://"},
		{"with path", webui.Config{URL: "https://memory.acme.com/ui"}, "scheme and host only"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v, want an error with %q", tt.name, err, tt.want)
		}
	}
}

func TestUIOff(t *testing.T) {
	off := false
	srv := startServer(t, servertest.WithConfig(func(c *server.Config) { c.UI.Enabled = &off }))
	for _, path := range []string{"/ui/", "/ui/signin"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s with the view off = %d %s, want the API's 404", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
}
