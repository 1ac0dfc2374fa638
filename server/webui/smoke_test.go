package webui_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

func TestBrowseByToken(t *testing.T) {
	srv := startServer(t)
	put(t, srv, srv.Token, "acme/app", map[string]string{
		"deploy.md": "---\nname: Deploy\ndescription: how we ship\ntype: project\n---\n# Deploy\n\nRun `make deploy` then **check** the dashboard.\n",
		"MEMORY.md": "- [Deploy](deploy.md)\n",
	})
	b := signedIn(t, srv, "alice", grant("acme/**", store.LevelWrite))
	for _, tt := range []struct{ path, want string }{
		{"/ui/", "acme/app"},
		{"/ui/repo?repo=acme/app", "how we ship"},
		{"/ui/note?repo=acme/app&key=deploy.md", "<strong>check</strong>"},
		{"/ui/search?q=dashboard", "deploy.md"},
		{"/ui/history?repo=acme/app&key=deploy.md", "servertest"},
		{"/ui/loads?repo=acme/app", "all of it is loaded"},
	} {
		p := b.get(tt.path)
		if p.status != http.StatusOK || !strings.Contains(p.body, tt.want) {
			t.Errorf("GET %s = %d, want 200 with %q:\n%s", tt.path, p.status, tt.want, p.body)
		}
	}
}
