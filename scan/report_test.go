package scan

import (
	"bytes"
	"encoding/json"
	"testing"
)

var reportFindings = []Finding{
	{RuleID: "aws-access-token", Description: "AWS", File: "team/a.md", Line: 3, Column: 7, Redacted: "key: [REDACTED]"},
	{RuleID: "pkcs12-file", Description: "PKCS12", File: "team/b.p12", Redacted: "[file name matches pkcs12-file]"},
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "text", reportFindings); err != nil {
		t.Fatal(err)
	}
	// A finding in the file's name has no line: the path alone.
	want := "team/a.md:3:7: aws-access-token: key: [REDACTED]\nteam/b.p12: pkcs12-file: [file name matches pkcs12-file]\n"
	if got := b.String(); got != want {
		t.Errorf("Write(text) = %q, want %q", got, want)
	}
}

func TestWriteJSON(t *testing.T) {
	for _, in := range [][]Finding{nil, reportFindings} {
		var b bytes.Buffer
		if err := Write(&b, "json", in); err != nil {
			t.Fatal(err)
		}
		var got []Finding
		if err := json.Unmarshal(b.Bytes(), &got); err != nil || len(got) != len(in) {
			t.Errorf("Write(json) decodes to %d findings (%v), want %d", len(got), err, len(in))
		}
	}
}

func TestWriteSARIF(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "sarif", reportFindings); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Schema  string `json:"$schema"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string `json:"level"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
						Region           *struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || log.Schema != sarifSchema || len(log.Runs) != 1 {
		t.Fatalf("Write(sarif) header = %q %q %d runs, want 2.1.0, schema, 1 run", log.Version, log.Schema, len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "teammemd" || len(run.Tool.Driver.Rules) != 2 || len(run.Results) != 2 {
		t.Fatalf("Write(sarif) run = %+v, want driver teammemd with 2 rules and 2 results", run)
	}
	r := run.Results[0]
	loc := r.Locations[0].PhysicalLocation
	if r.RuleID != "aws-access-token" || r.Level != "error" || r.Message.Text == "" || loc.ArtifactLocation.URI != "team/a.md" ||
		loc.Region == nil || loc.Region.StartLine != 3 || loc.Region.StartColumn != 7 {
		t.Errorf("Write(sarif) result = %+v, want aws-access-token at team/a.md:3:7", r)
	}
	if run.Results[1].Locations[0].PhysicalLocation.Region != nil {
		t.Errorf("Write(sarif) path-only finding has a region, want none")
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	if err := Write(&bytes.Buffer{}, "xml", nil); err == nil {
		t.Errorf("Write(xml) = nil, want an error")
	}
}
