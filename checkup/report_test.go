package checkup

import (
	"bytes"
	"slices"
	"testing"
)

// Each check prints one aligned line, a failure with its fix; the report
// keeps them in order and counts the failures, a fix only with one.
func TestReport(t *testing.T) {
	var out bytes.Buffer
	r := NewReport(&out)
	r.Add(OK, "config", "/home/you/.config/teammemd/config.toml", "ignored")
	r.Add(Fail, "token", "none", "run teammemd login")
	r.Add(Skip, "clock", "needs the server's Date", "")
	r.Add(Info, "project", "not synced", "")
	want := "ok    config         /home/you/.config/teammemd/config.toml\n" +
		"FAIL  token          none; fix: run teammemd login\n" +
		"skip  clock          needs the server's Date\n" +
		"info  project        not synced\n"
	if out.String() != want {
		t.Errorf("report printed\n%s\nwant\n%s", out.String(), want)
	}
	checks := []Check{
		{OK, "config", "/home/you/.config/teammemd/config.toml", ""},
		{Fail, "token", "none", "run teammemd login"},
		{Skip, "clock", "needs the server's Date", ""},
		{Info, "project", "not synced", ""},
	}
	if got := r.Checks(); !slices.Equal(got, checks) {
		t.Errorf("Checks() = %+v, want %+v", got, checks)
	}
	if r.Failed() != 1 {
		t.Errorf("Failed() = %d, want 1", r.Failed())
	}
}
