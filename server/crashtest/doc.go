// Package crashtest holds the server's standing crash suite: a real
// "teammemd serve" process, killed with SIGKILL during a storm of If-Match
// PUTs from 16 writers and restarted on the same data directory, after
// which every acknowledged write must be in the history, no PUT may be
// visible in part, and the SQLite file must pass its integrity check.
// docs/RELIABILITY.md states the invariants, the command and the environment
// variable of the long run.
package crashtest
