package api

// Bounds on the bodies a server sends at the limits of PROTOCOL.md section
// 5, so that a client refuses a larger one before it holds it. Each is
// what the fields could take at most: every key of the largest size, every
// value of the largest size, and JSON escaping at its worst.

const (
	// escapeFactor is how much JSON escaping can lengthen text: a control
	// character, or <, > or & as encoding/json writes them (\u003c), takes
	// 6 bytes.
	escapeFactor = 6
	// maxSubjectBytes bounds the subject of a revision: a token's subject,
	// or "oidc:", "github:" or "claude:" with an e-mail address or a login.
	maxSubjectBytes = 1024
	// checksumBytes is an entry checksum as JSON: "sha256:<64 hex>".
	checksumBytes = 2 + 7 + 64
	// memberBytes bounds what one map member or revision adds besides its
	// texts: names, punctuation, numbers and a time.
	memberBytes = 256
	// SmallBodyBytes bounds a body of fixed fields, such as a push's answer
	// or an error, and the fixed fields of any other body.
	SmallBodyBytes = 64 << 10
	// TombstoneBytes is what a client takes of a repo's deletedEntries. The
	// protocol does not bound how many keys a repo has deleted; this holds
	// about a million tombstones of 40-byte keys.
	TombstoneBytes = 64 << 20
	// WaitValueBytes bounds the keys and values, unquoted, that a change
	// wait's answer carries in Entries (extension, PROTOCOL.md section 18).
	WaitValueBytes = 64 << 10
)

// quotedBytes is the longest n bytes of text can be as a JSON string.
func quotedBytes(n int) int64 { return int64(n)*escapeFactor + 2 }

// orDefaults returns l with every unset limit a body depends on at its
// default.
func (l Limits) orDefaults() Limits {
	def := DefaultLimits()
	if l.MaxEntryBytes <= 0 {
		l.MaxEntryBytes = def.MaxEntryBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = def.MaxEntries
	}
	if l.MaxKeyBytes <= 0 {
		l.MaxKeyBytes = def.MaxKeyBytes
	}
	if l.MaxHistoryPageBytes <= 0 {
		l.MaxHistoryPageBytes = def.MaxHistoryPageBytes
	}
	return l
}

// HashesBodyBytes bounds the body of a hash probe: a checksum for every
// entry, and the tombstones.
func (l Limits) HashesBodyBytes() int64 {
	l = l.orDefaults()
	return SmallBodyBytes + int64(l.MaxEntries)*(quotedBytes(l.MaxKeyBytes)+checksumBytes+memberBytes) + TombstoneBytes
}

// WaitBodyBytes bounds the body of a change wait's answer: a hash probe's,
// and the values it may carry (Entries): each key and value quoted, and a
// member's punctuation for each of at most WaitValueBytes keys.
func (l Limits) WaitBodyBytes() int64 {
	return l.HashesBodyBytes() + 2*escapeFactor*WaitValueBytes
}

// FullBodyBytes bounds the body of a full pull: what a hash probe carries,
// and every entry's value.
func (l Limits) FullBodyBytes() int64 {
	l = l.orDefaults()
	values := int64(l.MaxEntries) * (quotedBytes(l.MaxKeyBytes) + quotedBytes(l.MaxEntryBytes) + memberBytes)
	return l.HashesBodyBytes() + values
}

// HistoryBodyBytes bounds the body of a history page of up to limit
// revisions, with their content or without. A page's content is at most
// MaxHistoryPageBytes, or one revision's when that alone is larger.
func (l Limits) HistoryBodyBytes(limit int, content bool) int64 {
	l = l.orDefaults()
	perRevision := quotedBytes(l.MaxKeyBytes) + quotedBytes(maxSubjectBytes) + quotedBytes(MaxClientBytes) + checksumBytes + memberBytes
	n := SmallBodyBytes + int64(limit)*perRevision
	if !content {
		return n
	}
	values := int64(l.MaxEntryBytes)
	if limit > 1 {
		values = max(values, l.MaxHistoryPageBytes)
	}
	return n + values*escapeFactor
}
