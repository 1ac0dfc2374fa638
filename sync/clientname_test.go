package memsync

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/servertest"
)

// TestClientNamesItself: a push records in history the token, the
// client's User-Agent with its platform, and the machine it names.
func TestClientNamesItself(t *testing.T) {
	srv := servertest.Start(t)
	tok, err := srv.Store.TokenByHash(context.Background(), auth.HashToken(srv.Token))
	if err != nil {
		t.Fatal(err)
	}
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token})
	platform := " (" + runtime.GOOS + "/" + runtime.GOARCH + ")"
	tests := []struct {
		name string
		opts []ClientOption
		want string
	}{
		{"named", []ClientOption{WithUserAgent("teammemd/1.4.0"), WithMachine("ann-laptop\r\n")},
			"token:" + tok.ID + " via teammemd/1.4.0" + platform + " on ann-laptop"},
		{"no machine", []ClientOption{WithMachine("")}, "token:" + tok.ID + " via teammemd/dev" + platform},
		{"defaults", nil, "token:" + tok.ID + " via teammemd/dev" + platform + onMachine(hostMachine())},
	}
	ctx := context.Background()
	for _, tt := range tests {
		c, err := NewClient(srv.URL, ts, tt.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Put(ctx, "acme/app", "", []byte(`{"entries":{"`+tt.name+`.md":"x"}}`)); err != nil {
			t.Fatalf("%s: Put error = %v", tt.name, err)
		}
		h, err := c.HistoryPage(ctx, "acme/app", HistoryRequest{Key: tt.name + ".md", Limit: 1, NoContent: true})
		if err != nil || len(h.Revisions) != 1 {
			t.Fatalf("%s: HistoryPage = %+v, %v; want one revision", tt.name, h, err)
		}
		if got := h.Revisions[0].Client; got != tt.want {
			t.Errorf("%s: revision client = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// onMachine is how a description ends for a machine name.
func onMachine(name string) string {
	if name == "" {
		return ""
	}
	return " on " + name
}

func TestShortHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ann-laptop", "ann-laptop"},
		{"ann-laptop.corp.example.com", "ann-laptop"},
		{"build\x01box.local", "buildbox"},
		{"", ""},
		{strings.Repeat("h", 100), strings.Repeat("h", maxMachineBytes)},
	}
	for _, tt := range tests {
		if got := shortHost(tt.in); got != tt.want {
			t.Errorf("shortHost(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
