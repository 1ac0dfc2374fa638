package memsync

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects is how many redirects within the server's origin a request
// follows, as many as net/http does by default.
const maxRedirects = 10

// RedirectError is the error of a request the server redirected to another
// origin (scheme, host and port). The client follows no such redirect:
// following it would send the token to a server it was not meant for.
type RedirectError struct {
	// From and To are the origins, scheme://host:port.
	From, To string
	// Status is the redirect's HTTP status.
	Status int
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("server %s redirected the request (HTTP %d) to another origin, %s: teammemd follows no redirect "+
		"to another scheme, host or port, so the token never leaves the server it is configured for; "+
		"if the server has moved there, set the server URL to %s", e.From, e.Status, e.To, e.To)
}

// checkRedirect is the http.Client's redirect policy: follow a redirect
// only within the origin of the first request, at most maxRedirects times.
func checkRedirect(req *http.Request, via []*http.Request) error {
	from, to := origin(via[0].URL), origin(req.URL)
	if from != to {
		status := 0
		if req.Response != nil {
			status = req.Response.StatusCode
		}
		return &RedirectError{From: from, To: to, Status: status}
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// origin returns u's scheme, host and port as scheme://host:port, with the
// scheme's default port when u names none and the scheme and host in lower
// case, so that two spellings of one origin compare equal.
func origin(u *url.URL) string {
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
