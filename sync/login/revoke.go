package login

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Revoke asks the identity provider to revoke rec's refresh token (RFC
// 7009); a login whose provider names no revocation endpoint has nothing to
// revoke.
func Revoke(ctx context.Context, client *http.Client, rec Record) error {
	if rec.RevocationEndpoint == "" || rec.RefreshToken == "" {
		return nil
	}
	form := url.Values{"token": {rec.RefreshToken}, "token_type_hint": {"refresh_token"}, "client_id": {rec.ClientID}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.RevocationEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("revoke login: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("revoke login: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("revoke login at %s: %s", rec.RevocationEndpoint, resp.Status)
	}
	return nil
}
