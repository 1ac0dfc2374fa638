// Package faulttest holds the daemon's standing proof suites for "a local
// edit is never lost": real teammemd serve and teammemd run processes on
// loopback, killed with SIGKILL at random points and restarted (the crash
// suite), or talking to the server through a proxy that injects network
// faults (the network fault suite), while a writer per teammate saves
// versions of a fixed set of notes. Afterwards every version is accounted
// for against the server's history and the conflict copies, and the team
// directories are checked for torn files, temporary litter and
// convergence. docs/RELIABILITY.md states the invariants, the commands and the
// environment variables of the long runs.
package faulttest
