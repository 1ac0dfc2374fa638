package api

// HeaderInstance is the request header in which a client names the one
// sync engine its PUTs and change waits come from (extension, PROTOCOL.md
// section 19): an opaque value it chose at random. A change wait of an
// instance is carried to the checksum of that instance's own write
// instead of being answered with it.
const HeaderInstance = "Teammemd-Instance"

// MaxInstanceBytes bounds a HeaderInstance value.
const MaxInstanceBytes = 64

// ValidInstance reports whether s may be a HeaderInstance value: 1 to
// MaxInstanceBytes ASCII letters, digits, '-' or '_'.
func ValidInstance(s string) bool {
	if s == "" || len(s) > MaxInstanceBytes {
		return false
	}
	for i := range len(s) {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
		if !ok {
			return false
		}
	}
	return true
}
