package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
)

// reqInfo is what the access log records about one request; handlers fill
// in the repo and the subject as they learn them.
type reqInfo struct {
	route   string
	repo    string
	subject string
	mode    string // the auth mode that judged the credential
	client  string // the client's address, as proxies.clientKey names it
	start   time.Time
	// parked is set when the handler parked a change wait: the wait logs
	// the request when it ends.
	parked bool
}

type infoKey struct{}

func infoFrom(ctx context.Context) *reqInfo {
	if info, ok := ctx.Value(infoKey{}).(*reqInfo); ok {
		return info
	}
	return &reqInfo{}
}

// statusWriter records the status and the body bytes of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// instrument wraps next with the access log and the request metrics under
// a fixed route name, and names the store's identity in the response's
// header. The log never holds a header value, a query string or a body.
func (s *Server) instrument(route string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.noteRequest(start)
		if r.Method == http.MethodPut {
			savetrace.Mark("server.request", "") // before the credential check
		}
		if id := s.identity.get(r.Context()); id != "" {
			w.Header().Set(api.StoreIDHeader, id)
		}
		info := &reqInfo{route: route, client: s.proxies.clientKey(r), start: start}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), infoKey{}, info)))
		if info.parked {
			return
		}
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		s.logRequest(r.Context(), r.Method, info, sw.status, sw.bytes, time.Since(start))
	})
}

// logRequest counts a request in the metrics and writes its access log
// line.
func (s *Server) logRequest(ctx context.Context, method string, info *reqInfo, status int, bytes int64, elapsed time.Duration) {
	s.metrics.requests.WithLabelValues(info.route, strconv.Itoa(status)).Inc()
	s.metrics.latency.WithLabelValues(info.route).Observe(elapsed.Seconds())
	attrs := make([]slog.Attr, 0, 9)
	attrs = append(attrs, slog.String("method", method), slog.String("route", info.route), slog.String("client", info.client))
	attrs = appendKnown(attrs, "repo", info.repo)
	attrs = append(attrs, slog.Int("status", status), slog.Float64("durationMs", float64(elapsed.Microseconds())/1000))
	attrs = appendKnown(attrs, "subject", info.subject)
	attrs = appendKnown(attrs, "mode", info.mode)
	attrs = append(attrs, slog.Int64("bytes", bytes))
	s.log.LogAttrs(ctx, accessLevel(status), "request", attrs...)
}

// appendKnown adds key only when the request made it known: a request
// refused before its repo was read (a 401, a 429) or its caller was
// authenticated has no repo, subject or mode, and its line leaves them out
// rather than log them empty.
func appendKnown(attrs []slog.Attr, key, value string) []slog.Attr {
	if value == "" {
		return attrs
	}
	return append(attrs, slog.String(key, value))
}

// accessLevel logs server faults as warnings, everything else as info.
func accessLevel(status int) slog.Level {
	if status >= http.StatusInternalServerError {
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// apiHandler is a team memory route after authentication and rate limiting.
type apiHandler func(w http.ResponseWriter, r *http.Request, p auth.Principal) error

// apiRoute wraps h: method check (405), the client address's budget of
// failed authentications (429), authentication (401), the per-subject rate
// limit (429), then h; an error h returns is sent as the envelope.
func (s *Server) apiRoute(methods []string, h apiHandler) http.Handler {
	allow := strings.Join(methods, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !methodIn(r.Method, methods) {
			w.Header().Set("Allow", allow)
			s.writeError(w, r, api.NewError(http.StatusMethodNotAllowed, api.CodeInvalidRequest,
				fmt.Sprintf("method %s is not allowed; use %s", r.Method, allow)))
			return
		}
		p, err := s.admit(w, r)
		if err == nil {
			info := infoFrom(r.Context())
			info.subject, info.mode = p.Subject, p.Mode
			err = s.limit(w, p.Subject)
		}
		if err == nil {
			err = h(w, r, p)
		}
		if err != nil {
			s.writeError(w, r, err)
		}
	})
}

func methodIn(m string, methods []string) bool {
	for _, want := range methods {
		if m == want {
			return true
		}
	}
	return false
}

// admit authenticates r within its client address's budget of failed
// authentications: a token of the address's bucket is held while the
// credential is checked, spent if it is not accepted (401, or 503 when it
// could not be checked) and given back if it is. An address with no token
// free gets 429 before its credential is looked at, so that no one can make
// the server ask the identity services without limit.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) (auth.Principal, error) {
	bearer, _ := bearerToken(r.Header.Get("Authorization"))
	return s.admitCredential(w, r, bearer)
}

// admitCredential checks bearer, the credential r carries, within the
// client address's budget of failed authentications, as admit does.
func (s *Server) admitCredential(w http.ResponseWriter, r *http.Request, bearer string) (auth.Principal, error) {
	reserve := s.failedAuth.reserve
	if auth.FormOf(bearer) == auth.ModeToken {
		reserve = s.failedAuth.admitLocal
	}
	h, wait, ok := reserve(s.proxies.clientKey(r), time.Now())
	if !ok {
		setRetryAfter(w, wait)
		return auth.Principal{}, api.NewError(http.StatusTooManyRequests, api.CodeRateLimited,
			"too many requests from this address failed authentication; retry later")
	}
	p, err := s.authenticate(r.Context(), w, bearer, repoHint(r))
	if err != nil {
		h.spend(time.Now())
		return auth.Principal{}, err
	}
	h.release()
	return p, nil
}

// authenticate checks a bearer credential, empty when none came, for a
// request that names repo (as sent, for the modes whose grants depend on
// it). The answer never holds the credential; a rejection says what to
// do, a login bound to another account answers 403 (refuseBound), and a
// mode that could not ask its identity service answers 503 so the client
// retries.
func (s *Server) authenticate(ctx context.Context, w http.ResponseWriter, bearer, repo string) (auth.Principal, error) {
	if bearer == "" {
		return auth.Principal{}, api.NewError(http.StatusUnauthorized, api.CodeUnauthenticated, "missing bearer token")
	}
	var p auth.Principal
	var err error
	if ra, ok := s.auth.(auth.RepoAuthenticator); ok {
		p, err = ra.AuthenticateRepo(ctx, bearer, repo)
	} else {
		p, err = s.auth.Authenticate(ctx, bearer)
	}
	var rej *auth.RejectError
	var unavail *auth.UnavailableError
	var bound *auth.BindingError
	switch {
	case errors.As(err, &bound):
		return auth.Principal{}, s.refuseBound(ctx, bound)
	case errors.As(err, &rej):
		infoFrom(ctx).mode = rej.Mode
		return auth.Principal{}, api.NewError(http.StatusUnauthorized, api.CodeUnauthenticated, rej.Message).
			With("reason", rej.Reason).With("auth_mode", rej.Mode)
	case errors.Is(err, auth.ErrUnauthenticated):
		return auth.Principal{}, api.NewError(http.StatusUnauthorized, api.CodeUnauthenticated, "invalid or revoked token")
	case errors.As(err, &unavail):
		infoFrom(ctx).mode = unavail.Mode
		s.log.WarnContext(ctx, "credential check failed", "mode", unavail.Mode, "err", err)
		return auth.Principal{}, unavailable(w, "the "+unavail.Mode+" credential could not be checked now; retry later", authRetry)
	case err != nil:
		return auth.Principal{}, fmt.Errorf("authenticate: %w", err)
	}
	return p, nil
}

// refuseBound answers a credential whose subject is bound to another
// account with 403, and tells the operator, who alone can release the
// binding, both accounts and how.
func (s *Server) refuseBound(ctx context.Context, bound *auth.BindingError) error {
	infoFrom(ctx).mode = bound.Mode
	s.log.WarnContext(ctx, "GitHub login bound to another account refused", "login", bound.Login,
		"boundId", bound.BoundID, "id", bound.ID, "release", bound.Release())
	return api.NewError(http.StatusForbidden, api.CodeACLDenied, bound.Message()).
		With("reason", auth.ReasonBound).With("auth_mode", bound.Mode)
}

// authRetry is the Retry-After of a credential that could not be checked.
const authRetry = 5 * time.Second

// repoHint is the request's repo parameter as sent, for authenticators whose
// grants depend on the repo; the handler validates it.
func repoHint(r *http.Request) string {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return ""
	}
	return q.Get(api.ParamRepo)
}

// bearerToken extracts the credential of an "Authorization: Bearer" header.
func bearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// limit applies the per-subject rate limit.
func (s *Server) limit(w http.ResponseWriter, subject string) error {
	wait, ok := s.limiter.allow(subject, time.Now())
	if ok {
		return nil
	}
	setRetryAfter(w, wait)
	return api.NewError(http.StatusTooManyRequests, api.CodeRateLimited, "too many requests; retry later")
}
