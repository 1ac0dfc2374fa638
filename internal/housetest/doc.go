// Package housetest checks the house rules of the teammemd module over its
// own source, with go/parser: every package has a doc comment; package
// memsync (sync/) is imported under that name wherever it is imported, so it
// is never read as the standard library's sync; no program code under
// server/ or sync/ imports a test helper of internal/; nothing outside
// cmd/ imports cmd/; no test seam (a variable named testHook...) is in a
// file the release build compiles; and a log line keys an error "err". Its tests are the checks; it holds no other code.
package housetest
