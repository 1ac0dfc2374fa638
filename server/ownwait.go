package server

import (
	"fmt"
	"net/http"

	"github.com/teammemd/teammemd/server/api"
)

// instanceOf returns the request's Teammemd-Instance (PROTOCOL.md section
// 19), "" when absent, or 400 when it is malformed or given twice.
func instanceOf(r *http.Request) (string, error) {
	v := r.Header.Values(api.HeaderInstance)
	switch {
	case len(v) == 0:
		return "", nil
	case len(v) > 1 || !api.ValidInstance(v[0]):
		return "", api.NewError(http.StatusBadRequest, api.CodeInvalidRequest,
			fmt.Sprintf("%s must be given once, as 1 to %d letters, digits, '-' or '_'", api.HeaderInstance, api.MaxInstanceBytes))
	}
	return v[0], nil
}

// carryOwnWaits moves the parked change waits of repo that instance of
// subject holds at from, the checksum its write found, to to, the
// checksum the write made: the writer learns to from its PUT's answer,
// so waking its wait with its own write would only have it ask again. It
// runs after the commit and before the write wakes the repo's waits. A
// wait parked elsewhere (another replica, a handler-held one) is
// answered as before, which is as correct and only costs more.
func (s *Server) carryOwnWaits(repo, subject, instance, from, to string) {
	if instance == "" || from == "" || from == to {
		return
	}
	s.lot.mu.Lock()
	defer s.lot.mu.Unlock()
	pr := s.lot.repos[repo]
	if pr == nil {
		return
	}
	for pw := range pr.waits {
		if pw.instance == instance && pw.subject == subject && pw.inm == from {
			pw.inm = to
			s.metrics.waitsCarried.Inc()
		}
	}
}
