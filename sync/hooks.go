package memsync

// Test seams. Each is nil in production; a test sets one to act at a moment
// that a real user or a full disk would only hit by chance.
var (
	// testHookBeforeReplace runs after a pull has judged key's local file
	// and before it replaces or deletes it.
	testHookBeforeReplace func(key string)
	// testHookAfterReplace runs once a pull has put key's new content in
	// place, before it looks at what it wrote.
	testHookAfterReplace func(key string)
	// testHookConflictWrite runs once a conflict copy's file is created,
	// before its data is written; an error it returns is taken as the
	// write's own (a full disk, say).
	testHookConflictWrite func() error
)
