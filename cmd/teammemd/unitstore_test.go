package main

import (
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server"
)

// The server unit's environment leaves the choice of store to the config
// file: a [server] store or data_dir there is what the service serves, and
// with neither it is the unit's state directory. An environment variable
// that named the data directory would win over a store in the file, and
// the service would serve a new, empty SQLite database instead.
func TestServerUnitLeavesTheStoreToTheConfig(t *testing.T) {
	u := readUnit(t, "../../systemd/teammemd-server.service")
	t.Setenv(storeEnv, "")
	t.Setenv("TEAMMEMD_DATA", "")
	for _, e := range u.sections["Service"]["Environment"] {
		for _, kv := range strings.Fields(e) {
			k, v, _ := strings.Cut(kv, "=")
			t.Setenv(k, v)
		}
	}
	state := "/var/lib/" + u.value("Service", "StateDirectory")
	const pg = "postgres://teammemd@db.internal/teammemd"
	for _, tc := range []struct {
		name string
		file server.Config
		want location
	}{
		{"store in the file", server.Config{Store: pg}, location{url: pg}},
		{"data_dir in the file", server.Config{DataDir: "/srv/teammemd"}, location{dataDir: "/srv/teammemd"}},
		{"neither", server.Config{}, location{dataDir: state}},
	} {
		got, err := resolveLocation("", "", tc.file)
		if err != nil || got != tc.want {
			t.Errorf("%s: resolveLocation under the unit's environment = %+v, %v, want %+v", tc.name, got, err, tc.want)
		}
	}
}
