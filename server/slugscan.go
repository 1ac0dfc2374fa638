package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/teammemd/teammemd/server/api"
)

// checkSlug refuses a write to a repo whose slug holds a secret, with 400
// naming the rules and never the slug; the access log then names the
// repo redacted, as shownRepo does, on the routes too that name no repo
// in it otherwise (MCP, the web view). When the scan cannot run, the
// write fails.
func (s *Server) checkSlug(ctx context.Context, repo string) error {
	rules, err := s.slugRules(ctx, repo)
	if err != nil {
		return err
	}
	if len(rules) == 0 {
		return nil
	}
	infoFrom(ctx).repo = api.RedactKey(repo)
	return api.NewError(http.StatusBadRequest, api.CodeInvalidRequest,
		"the repo's slug looks like it holds a secret: name the repo otherwise; nothing was written").With("rule_ids", rules)
}

// slugRules are the ids of the secret scan's rules that match repo's
// slug, as the scan reads a key's name; none without a scanner. It is the
// one test of a slug: a write's (checkSlug), and that of how the access
// log and the answers name a repo (shownRepo).
func (s *Server) slugRules(ctx context.Context, repo string) ([]string, error) {
	if s.scanner == nil {
		return nil, nil
	}
	hits, err := s.scanner.ScanKeys(ctx, []string{repo})
	if err != nil {
		return nil, fmt.Errorf("scan repo slug: %w", err)
	}
	return hits[repo], nil
}

// logRepo names repo in the request's access log as shownRepo does.
func (s *Server) logRepo(ctx context.Context, repo string) {
	infoFrom(ctx).repo = s.shownRepo(ctx, repo)
}

// shownRepo is repo as the server may log it or answer with it: as is,
// or redacted as a key whose name holds a secret is shown (api.RedactKey)
// when its slug holds one, on a read as on a write, or when the scan
// cannot run.
func (s *Server) shownRepo(ctx context.Context, repo string) string {
	rules, err := s.slugRules(ctx, repo)
	if err != nil || len(rules) > 0 {
		return api.RedactKey(repo)
	}
	return repo
}
