package api

// StoreIDHeader names, on every response, the identity of the database the
// server keeps its data in (extension): the Discovery's StoreID. A database
// restored from a backup, or data moved to another one, gets a new
// identity, so a client that sees it change knows that the repo's versions
// and checksums it remembers may have gone back, and syncs afresh. A client
// that knows nothing of it ignores it.
const StoreIDHeader = "Teammemd-Store-Id"

// maxStoreIDBytes bounds a store identity a client accepts.
const maxStoreIDBytes = 64

// ValidStoreID reports whether id can be a store identity: 1 to 64 ASCII
// letters, digits, '-' and '_'.
func ValidStoreID(id string) bool {
	if id == "" || len(id) > maxStoreIDBytes {
		return false
	}
	for _, c := range []byte(id) {
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}
