package auth

import (
	"fmt"
	"strings"

	"github.com/teammemd/teammemd/server/store"
)

// signInSubjects are the subject prefixes the server gives those it does
// not know by a token, and what each names. A token's subject never
// starts with one: a token for "github:alice" would act as the GitHub
// user alice, with her personal lanes, grants and admin rights, and one
// for "purge:root" would read in the history as a purge.
var signInSubjects = []struct{ prefix, names string }{
	{"oidc:", "an OpenID Connect sign-in"},
	{"github:", "a GitHub sign-in"},
	{"claude:", "a Claude sign-in"},
	{store.PurgeSubjectPrefix, "a purge in the history"},
}

// TokenSubjectProblem says why subject cannot be a token's, naming the
// sign-in its prefix stands for (in any case), or returns nil.
func TokenSubjectProblem(subject string) error {
	if strings.TrimSpace(subject) != subject {
		return fmt.Errorf("%q starts or ends with a space", subject)
	}
	for _, s := range signInSubjects {
		if len(subject) >= len(s.prefix) && strings.EqualFold(subject[:len(s.prefix)], s.prefix) {
			return fmt.Errorf("%q starts with %q, which names %s; a token's subject is a plain name, such as alice or ci", subject, s.prefix, s.names)
		}
	}
	return nil
}
