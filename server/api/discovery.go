package api

// DiscoveryPath is where a server describes itself without authentication
// (extension): GET answers a Discovery.
const DiscoveryPath = "/.well-known/teammemd"

// Discovery is the body of GET DiscoveryPath.
type Discovery struct {
	// Version is the server's teammemd version.
	Version string `json:"version"`
	// StoreID identifies the database the server keeps its data in: made
	// when the database is created, and made anew when it is restored from
	// a backup or copied by migrate-store. Every response also carries it
	// in StoreIDHeader.
	StoreID string `json:"store_id,omitempty"`
	// AuthModes lists the credentials the server accepts: "token", "oidc",
	// "github", "claude".
	AuthModes []string `json:"auth_modes"`
	// Login, present when OIDC is on, is what "teammemd login" needs for the
	// OAuth 2.0 device authorization grant.
	Login *Login `json:"login,omitempty"`
}

// Login describes the identity provider of device login. The endpoints are
// left out while the server cannot reach the provider; a client then reads
// them from the issuer's own discovery document.
type Login struct {
	Issuer                      string   `json:"issuer"`
	ClientID                    string   `json:"client_id"`
	DeviceAuthorizationEndpoint string   `json:"device_authorization_endpoint,omitempty"`
	TokenEndpoint               string   `json:"token_endpoint,omitempty"`
	RevocationEndpoint          string   `json:"revocation_endpoint,omitempty"`
	Scopes                      []string `json:"scopes"`
}

// EmailVerified reads an OpenID Connect email_verified claim, which some
// providers send as the string "true". A server counts a login's email only
// when it is verified, and "teammemd login" names the login as the server
// will.
func EmailVerified(v any) bool {
	switch b := v.(type) {
	case bool:
		return b
	case string:
		return b == "true"
	}
	return false
}
