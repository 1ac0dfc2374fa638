package memsync

import "crypto/sha256"

// warnSecretOnce logs that key's file holds a secret, once per content: a
// push retried, or one for an edit to another file, finds the same file
// again and would repeat the same warning on every attempt. The file is
// logged again once its content changes. data is the content the scan
// read; the secret itself is never logged. Nothing is logged where the
// report is shown (Options.ReportShown), which lists the file.
func (s *session) warnSecretOnce(key string, data []byte, b Blocked) {
	if s.reportShown {
		return
	}
	sum := sha256.Sum256(data)
	if s.secretsWarned == nil {
		s.secretsWarned = map[string][sha256.Size]byte{}
	}
	if last, ok := s.secretsWarned[key]; ok && last == sum {
		return
	}
	s.secretsWarned[key] = sum
	s.log.Warn("secret found; file not pushed", "key", b.Key, "rules", b.RuleIDs, "line", b.Line)
}

// forgetSecret drops key's logged content once the file holds no secret,
// so that a secret written into it again is logged again.
func (s *session) forgetSecret(key string) {
	delete(s.secretsWarned, key)
}

// reasonNotText is why a file that is not valid UTF-8 does not sync.
const reasonNotText = "not valid UTF-8 text"

// warnNotTextOnce logs that key's file is not valid UTF-8 text, once per
// content, as warnSkippedOnce logs the files the scan finds unable to
// sync: the push finds this one only once it has read it. data is the
// content read. Nothing is logged where the report is shown.
func (s *session) warnNotTextOnce(key string, data []byte) {
	if s.reportShown {
		return
	}
	sum := sha256.Sum256(data)
	if last, ok := s.notTextWarned[key]; ok && last == sum {
		return
	}
	if s.notTextWarned == nil {
		s.notTextWarned = map[string][sha256.Size]byte{}
	}
	s.notTextWarned[key] = sum
	s.log.Warn("file not synced", "key", s.Show(key), "reason", reasonNotText)
}

// warnSkippedOnce logs each local file the push's scan found unable to
// sync (over the size limit, a symlink, a name no note may have), once
// while the reason lasts; skipped is every such file of the scan, so a
// file missing from it is forgotten and logged again if it comes back.
// Nothing is logged where the report is shown (Options.ReportShown).
func (s *session) warnSkippedOnce(skipped []Skipped) {
	if s.reportShown {
		return
	}
	now := make(map[string]string, len(skipped))
	for _, sk := range skipped {
		now[sk.Key] = sk.Reason
		if s.skipsWarned[sk.Key] != sk.Reason {
			s.log.Warn("file not synced", "key", s.Show(sk.Key), "reason", sk.Reason)
		}
	}
	s.skipsWarned = now
}
