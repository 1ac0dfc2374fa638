package memsync

import (
	"net/http"

	"github.com/teammemd/teammemd/server/api"
)

// storageFullCause names a 507 answer, in a retry's cause and in
// StorageFullError.
const storageFullCause = "the server's storage is full (HTTP 507)"

// StorageFullError is the error of a write the server refused because
// its storage is full (HTTP 507, PROTOCOL.md section 4): it wrote
// nothing. It is no fault of the files, which keep their changes: as
// after any 5xx, the outcome is RetryLater, and the daemon sends them
// again with its backoff.
type StorageFullError struct {
	// Err is the server's answer.
	Err *api.Error
}

func (e *StorageFullError) Error() string {
	return storageFullCause + ", so it wrote nothing; the local files keep their changes, to be sent once its operator has made room"
}

func (e *StorageFullError) Unwrap() error { return e.Err }

// answerError is the error an answer with status and the protocol's
// error ae carries: ae itself, or for a 507 a *StorageFullError around
// it.
func answerError(ae *api.Error) error {
	if ae.Status == http.StatusInsufficientStorage {
		return &StorageFullError{Err: ae}
	}
	return ae
}
