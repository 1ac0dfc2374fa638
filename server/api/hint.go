package api

// HeaderHint, given as HintWrite on a change wait, asks for write hints
// (extension, PROTOCOL.md section 21): while the server holds the wait, a
// write to its repo that another client sends is announced at once by a
// 103 (Early Hints) informational response carrying HeaderHint: HintWrite,
// before the write is scanned and committed. The final answer follows as
// without it. A hint says only that a write arrived: it may be refused,
// and the wait then goes on. On a hash probe, the header announces a
// write its client is about to send, and the waits hear of it at once.
const HeaderHint = "Teammemd-Hint"

// HintWrite is the one value of HeaderHint.
const HintWrite = "write"

// MaxWriteHints bounds the hints one change wait gets: HTTP clients bound
// the informational responses before a final one (Go's at five).
const MaxWriteHints = 4
