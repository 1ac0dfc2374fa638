package server

import (
	"fmt"

	"github.com/teammemd/teammemd/server/auth"
)

// Values of RepoConfig.Review.
const (
	ReviewOff      = "off"
	ReviewRequired = "required"
)

// RepoConfig is one [[server.repo]] entry: settings of the repos whose
// slug matches Name, a slug or a grant pattern (acme/app, acme/**).
type RepoConfig struct {
	Name string `toml:"name"`
	// Review is "required" to hold every write to the repo as a proposal
	// until a reviewer approves it, or "off" (the default).
	Review string `toml:"review"`
}

// validateRepos checks every [[server.repo]] entry.
func validateRepos(repos []RepoConfig) error {
	for i, r := range repos {
		if err := auth.ValidatePattern(r.Name); err != nil {
			return fmt.Errorf("repo[%d].name %q: %w", i, r.Name, err)
		}
		switch r.Review {
		case "", ReviewOff, ReviewRequired:
		default:
			return fmt.Errorf("repo[%d].review %q: want %q or %q", i, r.Review, ReviewRequired, ReviewOff)
		}
	}
	return nil
}

// reviewRequired reports whether writes to repo are held for review: the
// last [[server.repo]] entry whose name matches it decides.
func reviewRequired(repos []RepoConfig, repo string) bool {
	required := false
	for _, r := range repos {
		if auth.Match(r.Name, repo) {
			required = r.Review == ReviewRequired
		}
	}
	return required
}
