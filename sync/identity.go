package memsync

import (
	"errors"
	"io/fs"
)

// StoreChanged reports whether the server's store identity, as the
// client's last response named it, differs from the one the repo's state
// was synced with: the server's database was restored from a backup or
// replaced, and the next pull re-baselines.
func (e *Engine) StoreChanged() bool {
	saved := ""
	if p := e.storeID.Load(); p != nil {
		saved = *p
	}
	cur := e.remote.StoreID()
	return saved != "" && cur != "" && cur != saved
}

// storeChanged is StoreChanged for the session's state.
func (s *session) storeChanged() bool {
	cur := s.remote.StoreID()
	return s.st.StoreID != "" && cur != "" && cur != s.st.StoreID
}

// rebaseline compares the server's store identity with the state's. On
// first sight it records it. When it changed, what the state knows of the
// server (its checksums, tombstones and repo checksum) may describe data
// the server no longer has, or versions that went back, so it is forgotten
// and the caller pulls in full; it reports whether it did that.
//
// The merge base of a file still in the team directory is forgotten too:
// that version may be one the restored server never had, and a pull that
// took it as agreed would overwrite or delete it without a trace. Without a
// base, the pull keeps it as a conflict copy when the server holds the key
// otherwise, and leaves it for the push when the server lacks the key or
// deleted it. The base of a file deleted locally stays, so the deletion is
// still sent when the server holds the version that was deleted.
func (s *session) rebaseline() bool {
	cur := s.remote.StoreID()
	switch {
	case cur == "" || cur == s.st.StoreID:
		return false
	case s.st.StoreID == "":
		s.st.StoreID = cur
		return false
	}
	s.log.Warn("server store identity changed; re-baselining with a full pull", "was", s.st.StoreID, "now", cur)
	s.st.StoreID = cur
	s.st.Review = nil
	s.st.ServerChecksums = map[string]string{}
	s.st.Tombstones = nil
	s.st.LastKnownChecksum = ""
	s.st.LastKnownVersion = 0
	for k := range s.st.Base {
		if _, err := s.td.root.Lstat(k); !errors.Is(err, fs.ErrNotExist) {
			delete(s.st.Base, k)
		}
	}
	s.rep.Rebaselined = true
	return true
}
