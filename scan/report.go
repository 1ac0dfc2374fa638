package scan

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/teammemd/teammemd/server/api"
)

// Formats lists the report formats Write accepts.
var Formats = []string{"text", "json", "sarif"}

// Write renders findings in format (text, json or sarif). Findings never
// hold a secret, so neither does any report.
func Write(w io.Writer, format string, findings []Finding) error {
	switch format {
	case "text":
		return writeText(w, findings)
	case "json":
		return writeJSON(w, findings)
	case "sarif":
		return writeSARIF(w, findings)
	}
	return fmt.Errorf("unknown report format %q (want text, json or sarif)", format)
}

// writeText writes one line per finding, the file name escaped for a
// terminal (api.Printable).
func writeText(w io.Writer, findings []Finding) error {
	for _, f := range findings {
		at := api.Printable(f.File)
		if f.Line > 0 {
			at += fmt.Sprintf(":%d:%d", f.Line, f.Column)
		}
		if _, err := fmt.Fprintf(w, "%s: %s: %s\n", at, f.RuleID, f.Redacted); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	}
	return nil
}

func writeJSON(w io.Writer, findings []Finding) error {
	if findings == nil {
		findings = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(findings); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// SARIF 2.1.0, the subset code-scanning tools read.
type sarifLog struct {
	Version string     `json:"version"`
	Schema  string     `json:"$schema"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
}

const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

func writeSARIF(w io.Writer, findings []Finding) error {
	run := sarifRun{
		Tool:    sarifTool{Driver: sarifDriver{Name: "teammemd", InformationURI: "https://github.com/teammemd/teammemd", Rules: []sarifRule{}}},
		Results: []sarifResult{},
	}
	index := map[string]int{}
	for _, f := range findings {
		if _, ok := index[f.RuleID]; !ok {
			index[f.RuleID] = len(run.Tool.Driver.Rules)
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: f.RuleID, ShortDescription: sarifMessage{f.Description}})
		}
		run.Results = append(run.Results, sarifResultFor(f, index[f.RuleID]))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sarifLog{Version: "2.1.0", Schema: sarifSchema, Runs: []sarifRun{run}}); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

func sarifResultFor(f Finding, ruleIndex int) sarifResult {
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: f.File}}}
	if f.Line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line, StartColumn: max(f.Column, 1)}
	}
	return sarifResult{
		RuleID:    f.RuleID,
		RuleIndex: ruleIndex,
		Level:     "error",
		Message:   sarifMessage{Text: f.RuleID + ": " + f.Redacted},
		Locations: []sarifLocation{loc},
	}
}

// RuleIDs returns the sorted unique rule ids of findings.
func RuleIDs(findings []Finding) []string {
	ids := make([]string, 0, len(findings))
	for _, f := range findings {
		ids = append(ids, f.RuleID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}
