package scan

import (
	"errors"
	"slices"
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"
)

// errEmptyAllowlist is gitleaks' own message for an allowlist without checks.
var errEmptyAllowlist = errors.New("must contain at least one check for: commits, paths, regexes, or stopwords")

// validateAllowlist does what gitleaks' Allowlist.Validate does, but builds
// no Aho-Corasick trie for the stopwords: its states take 2 KB each, about
// 8 MB for the default generic-api-key list, held for the life of the
// process. Without a trie, ContainsStopWord tests the lower-cased secret
// against each stopword with strings.Contains: the same verdict, for a
// cost paid only by a candidate that has passed its rule's entropy check.
//
// Validate still runs for the commits, paths and regexes (it joins each
// kind into one expression); the stopwords are withheld from it and set
// afterwards as it would leave them, lower-cased and unique. An empty
// stopword is the exception: the trie never matches it where
// strings.Contains always would, so such a list goes to Validate whole.
func validateAllowlist(a *config.Allowlist, stopwords []string) error {
	if slices.Contains(stopwords, "") {
		a.StopWords = stopwords
		return a.Validate()
	}
	if len(a.Commits) > 0 || len(a.Paths) > 0 || len(a.Regexes) > 0 {
		if err := a.Validate(); err != nil {
			return err
		}
	} else if len(stopwords) == 0 {
		return errEmptyAllowlist
	}
	a.StopWords = uniqueLower(stopwords)
	return nil
}

// uniqueLower returns the words lower-cased, sorted and without duplicates.
func uniqueLower(words []string) []string {
	if len(words) == 0 {
		return nil
	}
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.ToLower(w)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
