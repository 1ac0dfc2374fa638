package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

// personalSettingCases cover the [server.personal] keys.
func personalSettingCases() []settingCase {
	return []settingCase{
		{keys: []string{"personal.enabled"}, toml: "[server.personal]\nenabled = false\n", probe: probePersonalOff},
		{keys: []string{"personal.max_bytes", "personal.max_entries"},
			toml: "[server.personal]\nmax_bytes = 10\nmax_entries = 2\n", probe: probePersonalQuota},
	}
}

const (
	settingsKeyID = "0123456789abcdef0123456789abcdef"
	settingsLane  = "aaaabbbbccccddddeeeeffff00001111"
)

func probePersonalOff(t *testing.T, s *settingServer) {
	a := s.call(t, http.MethodGet, api.PersonalLanesPath, s.alice, nil, nil)
	if a.status != http.StatusNotFound || !strings.Contains(string(a.body), api.CodePersonalDisabled) {
		t.Errorf("GET lanes = %d %s, want 404 %s", a.status, a.body, api.CodePersonalDisabled)
	}
}

func probePersonalQuota(t *testing.T, s *settingServer) {
	a := s.call(t, http.MethodPut, api.PersonalKeyPath, s.alice, api.KeyEnvelope{KeyID: settingsKeyID, Envelope: "armor"},
		map[string]string{"If-None-Match": "*"})
	if a.status != http.StatusOK {
		t.Fatalf("PUT key = %d %s, want 200", a.status, a.body)
	}
	lane := api.PersonalPath + "?lane=" + settingsLane
	header := map[string]string{api.PersonalKeyHeader: settingsKeyID}
	for _, tt := range []struct {
		entries map[string]string
		want    int
	}{
		{map[string]string{"a": "12345678901"}, http.StatusRequestEntityTooLarge},
		{map[string]string{"a": "1", "b": "2", "c": "3"}, http.StatusRequestEntityTooLarge},
		{map[string]string{"a": "1234567890", "b": ""}, http.StatusOK},
	} {
		a := s.call(t, http.MethodPut, lane, s.alice, api.PutRequest{Entries: tt.entries}, header)
		if a.status != tt.want {
			t.Errorf("PUT lane %v = %d %s, want %d", tt.entries, a.status, a.body, tt.want)
		}
	}
}
