// Package e2e holds the end-to-end tests that run the shipped Claude Code
// client for two teammates against real teammemd processes; see
// claude_test.go.
package e2e
