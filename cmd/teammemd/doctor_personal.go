package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/checkup"
	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude/route"
	"github.com/teammemd/teammemd/sync/personal"
)

// checkPersonal reports the personal lane, unless the config turns it
// off or this machine holds no key for the server: the key stored here
// and that it opens, Claude Code's own private memory sync, and on the
// server the lanes, the key it names and the quota.
func (d *doctor) checkPersonal(ctx context.Context) {
	server := d.client.Server
	if d.badConfig || server == "" {
		return
	}
	if !d.cfg.Personal.On() {
		d.report(checkInfo, "personal", "the personal lane is off: [personal] enabled = false in the config, so the daemon runs no personal lane", "")
		return
	}
	if !personalKeyStored(server) {
		d.report(checkInfo, "personal", "the personal lane is off: this machine holds no personal key for "+server+
			" (teammemd personal init on your first machine, teammemd personal join on the others, turns it on)", "")
		return
	}
	st := personalKeyStore("")
	keys, err := st.Load(ctx, server)
	if err != nil {
		d.report(checkFail, "personal key", err.Error(), "run teammemd personal join to store the key again")
		return
	}
	d.report(checkOK, "personal key", fmt.Sprintf("%s, kept in %s, opens", keys.Current.ID(), st.Where(ctx, server)), "")
	d.checkPrivateSync(ctx)
	lanes, ok := d.personalLanes(ctx, server)
	if !ok {
		return
	}
	d.checkServerKey(keys, lanes.KeyID)
	d.checkQuota(lanes)
}

// checkPrivateSync reports whether Claude Code keeps its own private
// memory sync off, which the personal lane needs.
func (d *doctor) checkPrivateSync(ctx context.Context) {
	a := newAgentChecker(ctx, d.claude)
	if a.err != nil || a.client.Path == "" {
		d.report(checkSkip, "private sync", "no Claude Code client found to check", "")
		return
	}
	off, why := route.PrivateSyncOff(a.client, a.home, "", os.Getenv)
	if !off {
		d.report(checkFail, "private sync", why, "teammemd setup claude --disable-client-traffic")
		return
	}
	d.report(checkOK, "private sync", why, "")
}

// personalLanes asks the server for the caller's lanes, and reports
// whether it answered.
func (d *doctor) personalLanes(ctx context.Context, server string) (api.LanesResponse, bool) {
	if !d.identity || d.token == "" {
		d.report(checkSkip, "personal lane", "needs a teammemd server and a token", "")
		return api.LanesResponse{}, false
	}
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: d.token, TokenType: "Bearer"})
	c, err := memsync.NewClient(server, ts, memsync.WithUserAgent("teammemd/"+version+" doctor"), memsync.WithRetry(1, time.Second, 2*time.Second))
	if err != nil {
		d.report(checkFail, "personal lane", err.Error(), "check the server URL")
		return api.LanesResponse{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	lanes, err := c.PersonalLanes(ctx)
	var ae *api.Error
	switch {
	case errors.As(err, &ae) && ae.Code == api.CodePersonalDisabled:
		d.report(checkFail, "personal lane", "the server does not offer the personal lane", "ask its operator to set [server.personal] enabled = true")
		return lanes, false
	case err != nil:
		d.report(checkFail, "personal lane", err.Error(), checkup.ReachFix(err))
		return lanes, false
	}
	d.report(checkOK, "personal lane", fmt.Sprintf("the server answers: %d %s", len(lanes.Lanes), checkup.Plural(len(lanes.Lanes), "lane", "lanes")), "")
	return lanes, true
}

// checkServerKey compares the key the server names with the one stored.
// A machine that still holds a previous key is rotating, whichever of the
// two the server names: the rotation stores the new key on the server
// before it re-encrypts the lanes.
func (d *doctor) checkServerKey(keys personal.Keys, serverID string) {
	rotating := serverID == keys.Current.ID() && len(keys.Previous) > 0
	switch {
	case serverID == keys.Current.ID() && !rotating:
		d.report(checkOK, "server key", "the server's personal key is this machine's", "")
	case serverID == "":
		d.report(checkFail, "server key", "the server holds no personal key", "run teammemd personal init")
	case rotating || slices.ContainsFunc(keys.Previous, func(k *personal.Key) bool { return k.ID() == serverID }):
		d.report(checkFail, "server key", "a rotation of the personal key begun here is unfinished", "run teammemd personal rotate-key to finish it")
	default:
		d.report(checkFail, "server key", fmt.Sprintf("the server's personal key is %s, not this machine's %s: it was rotated on another machine", serverID, keys.Current.ID()),
			"run teammemd personal join")
	}
}

// checkQuota reports the caller's use of its personal lane quota.
func (d *doctor) checkQuota(lanes api.LanesResponse) {
	q := lanes.Quota
	detail := fmt.Sprintf("%d of %d entries, %s of %s", q.UsedEntries, q.MaxEntries, byteSize(q.UsedBytes), byteSize(q.MaxBytes))
	if (q.MaxEntries > 0 && q.UsedEntries >= q.MaxEntries) || (q.MaxBytes > 0 && q.UsedBytes >= q.MaxBytes) {
		d.report(checkFail, "personal quota", detail+": full, new notes stay on this machine", "remove private notes you no longer need, or ask the server's operator for more; the notes held back are sent by the lane's next push, or by a reload of the daemon")
		return
	}
	d.report(checkOK, "personal quota", detail, "")
}
