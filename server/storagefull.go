package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// fullRecheck is how long /readyz answers 503 after a write the store
// refused because its storage is full, while no write has succeeded
// since. A replica that a load balancer took out of rotation gets no
// writes that could tell it there is room again: once this long has
// passed without another refusal, it answers 200, the balancer sends it
// writes again, and the first one refused makes it 503 again.
const fullRecheck = 30 * time.Second

// fullReporter is a store that tells whether its last write was refused
// because its storage is full, and when (both stores).
type fullReporter interface {
	StorageFull() (time.Time, error)
}

// refuseFull is the answer to a write the store refused because its
// storage is full (an error that is store.ErrFull): the 507 that says so,
// with the store's error logged once.
func (s *Server) refuseFull(ctx context.Context, err error) *api.Error {
	s.log.ErrorContext(ctx, "write refused: the store's storage is full", "route", infoFrom(ctx).route, "err", err)
	return api.StorageFull()
}

// storageFull returns the 503 /readyz answers while the store's last
// write was refused because its storage is full, at most fullRecheck
// after it; nil when it was not, or when a write has succeeded since.
func (s *Server) storageFull(w http.ResponseWriter) *api.Error {
	fr, ok := s.store.Store.(fullReporter)
	if !ok {
		return nil
	}
	at, err := fr.StorageFull()
	left := fullRecheck - s.now().Sub(at)
	if err == nil || left <= 0 {
		return nil
	}
	return unavailable(w, fmt.Sprintf("the store's storage is full: a write was refused for want of room at %s, and none has succeeded since",
		at.UTC().Format(time.RFC3339)), left)
}
