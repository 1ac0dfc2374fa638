// Package linearizetest holds the server's standing linearizability suite:
// 16 clients send full pulls, hash probes and If-Match PUTs to shared
// repos on the real server handler over loopback, on a real SQLite store,
// and porcupine checks the recorded history against a sequential model of
// the repo API (PROTOCOL.md sections 2 and 3). A deliberately broken
// server, whose store never sees If-Match, must fail the same check, so
// the check is known to bite. docs/RELIABILITY.md gives the commands and the
// environment variable of the long run.
package linearizetest
