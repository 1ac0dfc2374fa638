// Package hashcount lets tests count the entry checksums the sync engine
// computes, to prove that a note on its way through the engine and the
// daemon is hashed only as often as it must be. It works only in a build
// with the tag testhooks; in any other build the engine's call to Note is
// compiled away and Count skips the test that asks for it.
package hashcount
