package savetrace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMarkRecordsWhileOn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace")
	Mark("before", "dropped") // off: nothing is recorded
	t.Setenv(EnvVar, path)
	stop, err := StartFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if !On() {
		t.Fatal("On() = false after StartFromEnv, want true")
	}
	Mark("push.put", "")
	Mark("write.renamed", "team/a b.md")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	Mark("after", "dropped")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range events {
		if ev.Pid != os.Getpid() {
			t.Errorf("event %q has pid %d, want %d", ev.Step, ev.Pid, os.Getpid())
		}
		got = append(got, ev.Step+"|"+ev.Detail)
	}
	if want := "push.put||write.renamed|team/a b.md"; strings.Join(got, "|") != want {
		t.Errorf("events = %q, want %q", strings.Join(got, "|"), want)
	}
	if len(events) == 2 && events[1].At.Before(events[0].At) {
		t.Errorf("second mark at %v before the first at %v", events[1].At, events[0].At)
	}
}

func TestStartFromEnvOff(t *testing.T) {
	t.Setenv(EnvVar, "")
	stop, err := StartFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if On() {
		t.Error("On() = true without " + EnvVar + ", want false")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestStartFromEnvBadPath(t *testing.T) {
	t.Setenv(EnvVar, filepath.Join(t.TempDir(), "missing", "trace"))
	if _, err := StartFromEnv(); err == nil {
		t.Error("StartFromEnv() with a path in a missing directory = nil error, want one")
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line    string
		step    string
		detail  string
		wantErr bool
	}{
		{"1700000000000000000 42 pull.get ", "pull.get", "", false},
		{"1700000000000000000 42 pull.get", "pull.get", "", false},
		{"1700000000000000000 42 watch.event /a b/c.md", "watch.event", "/a b/c.md", false},
		{"x 42 pull.get ", "", "", true},
		{"1700000000000000000 x pull.get ", "", "", true},
		{"1700000000000000000 42", "", "", true},
	}
	for _, tt := range tests {
		ev, err := parseLine(tt.line)
		if (err != nil) != tt.wantErr || ev.Step != tt.step || ev.Detail != tt.detail {
			t.Errorf("parseLine(%q) = %q, %q, %v, want %q, %q, error %v", tt.line, ev.Step, ev.Detail, err, tt.step, tt.detail, tt.wantErr)
		}
	}
}
