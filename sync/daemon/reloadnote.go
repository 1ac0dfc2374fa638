package daemon

// NoteReload records how the last reload of the config went, for the
// status: err is why it failed (the running repos were kept), nil clears
// an earlier failure.
func (d *Daemon) NoteReload(err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reloadErr = msg
}
