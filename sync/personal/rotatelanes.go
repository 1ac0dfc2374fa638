package personal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/teammemd/teammemd/server/api"
)

// maxBatchBytes bounds one PUT of a lane copy.
const maxBatchBytes = 200 << 10

// maxCopyTries bounds how often one lane's copy starts again when the new
// lane changes under it (the daemon writes there too).
const maxCopyTries = 5

// copyLanes copies every lane written with a key other than the current
// one into the current key's lane of the same project, and drops it.
func (r Rotation) copyLanes(ctx context.Context, keys Keys) ([]LaneCopied, error) {
	lanes, err := r.Client.PersonalLanes(ctx)
	if err != nil {
		return nil, err
	}
	var done []LaneCopied
	for _, l := range lanes.Lanes {
		if l.KeyID == keys.Current.ID() {
			continue
		}
		c, err := r.copyLane(ctx, keys, l.Lane)
		if err != nil {
			return done, err
		}
		done = append(done, c...)
	}
	return done, nil
}

// copyLane moves one old lane's live entries to the new key and drops it.
func (r Rotation) copyLane(ctx context.Context, keys Keys, lane string) ([]LaneCopied, error) {
	cur := keys.Current
	full, _, err := r.Client.PersonalGet(ctx, lane, cur.ID(), "")
	if err != nil {
		return nil, err
	}
	byProject, err := openLane(keys.All(), lane, full.Content.Entries)
	if err != nil {
		return nil, err
	}
	var out []LaneCopied
	for _, project := range slices.Sorted(maps.Keys(byProject)) {
		to := cur.LaneID(project)
		if err := r.fillLane(ctx, cur, to, byProject[project]); err != nil {
			return out, err
		}
		c := LaneCopied{From: lane, To: to, Entries: len(byProject[project])}
		out = append(out, c)
		if r.Progress != nil {
			r.Progress(c)
		}
	}
	if err := r.Client.DeletePersonalLane(ctx, lane, cur.ID()); err != nil && !isStatus(err, http.StatusNotFound) {
		return out, err
	}
	return out, nil
}

// openLane decrypts a lane's entries, by the project each says it is of.
// An entry no key here opens, or one that does not belong in the lane,
// stops the rotation: dropping the lane would lose it.
func openLane(keys []*Key, lane string, entries map[string]string) (map[string][]Note, error) {
	out := map[string][]Note{}
	for _, wire := range slices.Sorted(maps.Keys(entries)) {
		n, by, err := Open(keys, wire, entries[wire])
		if err != nil {
			return nil, fmt.Errorf("personal lane %s: %w; the lane is kept", lane, err)
		}
		if by.LaneID(n.Project) != lane {
			return nil, fmt.Errorf("personal lane %s: entry %s belongs to another lane; the lane is kept", lane, wire)
		}
		out[n.Project] = append(out[n.Project], n)
	}
	return out, nil
}

// fillLane writes notes into lane, sealed with k, in batches chained with
// If-Match. A note the lane already holds, or holds deleted, stays as it
// is: that was written with the new key, by an earlier run or by the
// daemon, after the old lane's copy was made.
func (r Rotation) fillLane(ctx context.Context, k *Key, lane string, notes []Note) error {
	for range maxCopyTries {
		err := r.fillOnce(ctx, k, lane, notes)
		if !isStatus(err, http.StatusPreconditionFailed) {
			return err
		}
	}
	return fmt.Errorf("personal lane %s kept changing while the rotation wrote to it; run teammemd personal rotate-key again", lane)
}

func (r Rotation) fillOnce(ctx context.Context, k *Key, lane string, notes []Note) error {
	have, etag, err := r.laneKeys(ctx, k, lane)
	if err != nil {
		return err
	}
	batch, size := map[string]string{}, 0
	for _, n := range notes {
		wire, value, err := k.Seal(n)
		if err != nil {
			return err
		}
		if have[wire] {
			continue
		}
		if size+len(wire)+len(value) > maxBatchBytes && len(batch) > 0 {
			if etag, err = r.put(ctx, k, lane, etag, batch); err != nil {
				return err
			}
			batch, size = map[string]string{}, 0
		}
		batch[wire], size = value, size+len(wire)+len(value)
	}
	if len(batch) > 0 {
		_, err = r.put(ctx, k, lane, etag, batch)
	}
	return err
}

// laneKeys returns the live keys of lane and its checksum; a lane never
// written has none and "".
func (r Rotation) laneKeys(ctx context.Context, k *Key, lane string) (map[string]bool, string, error) {
	full, _, err := r.Client.PersonalGet(ctx, lane, k.ID(), "")
	if isStatus(err, http.StatusNotFound) {
		return map[string]bool{}, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	have := map[string]bool{}
	for wire := range full.Content.Entries {
		have[wire] = true
	}
	for wire := range full.Content.DeletedEntries {
		have[wire] = true // deleted since the rotation began: stays deleted
	}
	return have, full.Checksum, nil
}

func (r Rotation) put(ctx context.Context, k *Key, lane, ifMatch string, entries map[string]string) (string, error) {
	body, err := json.Marshal(api.PutRequest{Entries: entries})
	if err != nil {
		return "", fmt.Errorf("encode personal lane %s: %w", lane, err)
	}
	resp, err := r.Client.PersonalPut(ctx, lane, k.ID(), ifMatch, body)
	if err != nil {
		return "", err
	}
	return resp.Checksum, nil
}

func isStatus(err error, status int) bool {
	var ae *api.Error
	return errors.As(err, &ae) && ae.Status == status
}
