package personal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// Transport is a personal lane's remote: it stands in for *memsync.Client
// in the engine, which sees plaintext paths and contents, while the server
// sees only the sealed wire keys and values of the lane. Repo checksums
// pass through as the server gives them, so If-Match and If-None-Match
// keep their meaning; entry checksums are the plaintext's, so the engine
// compares them with its files. It is safe for concurrent use.
type Transport struct {
	client  *memsync.Client
	keys    Keys
	project string
	files   memsync.LaneFiles
	lane    string
	names   *nameMap
	// maxEntry is the server's entry limit that a sealed value must fit.
	maxEntry int

	mu sync.Mutex
	// plain maps a sealed value's entry checksum to its plaintext's.
	plain map[string]string
}

// NewTransport returns the transport of project's lane under keys'
// current key, whose files are files, over c. Its map of wire keys to
// paths lives in the lane's state directory under stateDir.
func NewTransport(c *memsync.Client, keys Keys, project string, files memsync.LaneFiles, stateDir string) (*Transport, error) {
	if keys.Current == nil {
		return nil, ErrNoKeys
	}
	lane := keys.Current.LaneID(project)
	names, err := loadNames(memsync.LaneStateDir(stateDir, lane, c.Host()))
	if err != nil {
		return nil, err
	}
	return &Transport{client: c, keys: keys, project: project, files: files, lane: lane, names: names,
		maxEntry: api.DefaultMaxEntryBytes, plain: map[string]string{}}, nil
}

// Lane returns the lane's ID.
func (t *Transport) Lane() string { return t.lane }

// Host names the server, as the client does.
func (t *Transport) Host() string { return t.client.Host() }

// StoreID is the server's store identity, as the client last saw it.
func (t *Transport) StoreID() string { return t.client.StoreID() }

// msgKeyRotated is the reason a lane stops when the server's key is not
// this machine's.
const msgKeyRotated = "the personal key was rotated on another machine; run `teammemd personal join`"

// checked returns err, or the *memsync.LaneStopError that stops the lane
// when the answer named another key than this machine's or refused the
// request for the lane's key. It is called after every request, before
// anything of the answer is used.
func (t *Transport) checked(err error) error {
	if id := t.client.PersonalKeyID(); id != "" && id != t.keys.Current.ID() {
		return &memsync.LaneStopError{Reason: msgKeyRotated}
	}
	var ae *api.Error
	if !errors.As(err, &ae) {
		return err
	}
	switch ae.Code {
	case api.CodePersonalKeyChanged:
		return &memsync.LaneStopError{Reason: msgKeyRotated}
	case api.CodePersonalNotInitialized:
		return &memsync.LaneStopError{Reason: "the server holds no personal key for you: run `teammemd personal init`, or `teammemd personal join` with the recovery code"}
	case api.CodePersonalDisabled:
		return &memsync.LaneStopError{Reason: "the server does not offer the personal lane (its operator turned it off); set [personal] enabled = false to stop asking"}
	}
	return err
}

// Get pulls the lane in full and opens every note: a note that none of
// this machine's keys opens, or that belongs elsewhere, fails the pull
// before the engine writes anything.
func (t *Transport) Get(ctx context.Context, _, ifNoneMatch string) (api.FullResponse, bool, error) {
	resp, modified, err := t.client.PersonalGet(ctx, t.lane, t.keys.Current.ID(), ifNoneMatch)
	if err = t.checked(err); err != nil || !modified {
		return resp, modified, err
	}
	plain, err := t.open(resp)
	if err != nil {
		return api.FullResponse{}, false, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.names.save(); err != nil {
		return api.FullResponse{}, false, err
	}
	return plain, true, nil
}

// Hashes probes the lane and answers with the plaintext's entry
// checksums: from the cache of what was opened or sealed before, else
// from a full pull.
func (t *Transport) Hashes(ctx context.Context, _ string) (api.HashesResponse, error) {
	h, err := t.client.PersonalHashes(ctx, t.lane, t.keys.Current.ID())
	if err = t.checked(err); err != nil {
		return h, err
	}
	return t.plainHashes(ctx, h)
}

// Wait holds a change wait on the lane (PROTOCOL.md section 3); a change
// is answered with the plaintext's entry checksums, as Hashes.
func (t *Transport) Wait(ctx context.Context, _, ifNoneMatch string, wait time.Duration) (api.HashesResponse, bool, error) {
	h, changed, err := t.client.PersonalWait(ctx, t.lane, t.keys.Current.ID(), ifNoneMatch, wait)
	if err = t.checked(err); err != nil || !changed {
		return h, changed, err
	}
	h, err = t.plainHashes(ctx, h)
	return h, err == nil, err
}

// plainHashes translates a hash probe's answer to plaintext paths and
// checksums; a sealed checksum never seen is learned by a full pull.
func (t *Transport) plainHashes(ctx context.Context, h api.HashesResponse) (api.HashesResponse, error) {
	out, ok := t.translate(h)
	if ok {
		return out, nil
	}
	full, _, err := t.client.PersonalGet(ctx, t.lane, t.keys.Current.ID(), "")
	if err = t.checked(err); err != nil {
		return h, err
	}
	if _, err := t.open(full); err != nil {
		return h, err
	}
	out, _ = t.translate(h)
	return out, nil
}

// translate maps h's wire keys and sealed checksums to paths and plaintext
// checksums; ok is false when one is not known yet. Entries of other
// projects or outside the lane's files are left out.
func (t *Transport) translate(h api.HashesResponse) (api.HashesResponse, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := h
	out.EntryChecksums = make(map[string]string, len(h.EntryChecksums))
	for wire, sealed := range h.EntryChecksums {
		p, known := t.names.path(wire, t.keys.All(), t.project)
		sum, seen := t.plain[sealed]
		if !known || !seen {
			return h, false
		}
		if t.files.Holds(p) {
			out.EntryChecksums[p] = sum
		}
	}
	out.DeletedEntries = t.tombstones(h.DeletedEntries)
	return out, true
}

// tombstones maps deletion markers to paths; a wire key of no path this
// machine knows was never here, and is left out.
func (t *Transport) tombstones(in map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(in))
	for wire, at := range in {
		if p, ok := t.names.path(wire, t.keys.All(), t.project); ok && t.files.Holds(p) {
			out[p] = at
		}
	}
	return out
}

// open decrypts a full pull into the lane's plaintext view.
func (t *Transport) open(resp api.FullResponse) (api.FullResponse, error) {
	out := resp
	out.Content = api.Content{Entries: map[string]string{}, EntryChecksums: map[string]string{}}
	learned := map[string]string{}
	plain := map[string]string{}
	for wire, value := range resp.Content.Entries {
		n, err := t.openNote(wire, value)
		if err != nil {
			return api.FullResponse{}, err
		}
		learned[wire] = n.Path
		sum := api.EntryChecksumBytes(n.Content)
		plain[api.EntryChecksum(value)] = sum
		if t.files.Holds(n.Path) {
			out.Content.Entries[n.Path] = string(n.Content)
			out.Content.EntryChecksums[n.Path] = sum
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.names.learn(learned)
	for k, v := range plain {
		t.plain[k] = v
	}
	out.Content.DeletedEntries = t.tombstones(resp.Content.DeletedEntries)
	return out, nil
}

// openNote opens one sealed note and checks it is the lane's.
func (t *Transport) openNote(wire, value string) (Note, error) {
	n, _, err := Open(t.keys.All(), wire, value)
	if errors.Is(err, ErrNoKey) {
		return Note{}, &memsync.LaneStopError{Reason: "a note in the personal lane of " + t.project +
			" was sealed with a personal key this machine does not have; nothing was written: run `teammemd personal join`"}
	}
	if err != nil {
		return Note{}, fmt.Errorf("personal lane of %s: %w", t.project, err)
	}
	if n.Project != t.project {
		return Note{}, fmt.Errorf("personal lane of %s: %s holds a note of another project; nothing was written", t.project, wire)
	}
	return n, nil
}

// Put seals a batch and sends it, as PUTs under the batch limit chained
// by If-Match when sealing grew it past one. The answer is the last PUT's.
func (t *Transport) Put(ctx context.Context, _, ifMatch string, body []byte) (api.PutResponse, error) {
	var req api.PutRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return api.PutResponse{}, fmt.Errorf("personal lane of %s: decode push: %w", t.project, err)
	}
	sealed, err := t.seal(req)
	if err != nil {
		return api.PutResponse{}, err
	}
	var resp api.PutResponse
	for _, b := range sealed {
		data, err := json.Marshal(b)
		if err != nil {
			return resp, fmt.Errorf("personal lane of %s: encode push: %w", t.project, err)
		}
		resp, err = t.client.PersonalPut(ctx, t.lane, t.keys.Current.ID(), ifMatch, data)
		if err = t.checked(err); err != nil {
			return resp, err
		}
		ifMatch = resp.Checksum
	}
	return resp, nil
}

// seal turns a plaintext batch into sealed batches within
// api.BatchMaxBytes, and learns the names and checksums it made.
func (t *Transport) seal(req api.PutRequest) ([]api.PutRequest, error) {
	learned := map[string]string{}
	plain := map[string]string{}
	out := []api.PutRequest{{Entries: map[string]string{}}}
	size := api.BatchEnvelopeBytes
	add := func(n int) *api.PutRequest {
		cur := &out[len(out)-1]
		if size+n > api.BatchMaxBytes && (len(cur.Entries) > 0 || len(cur.SoftDeleteKeys) > 0) {
			out = append(out, api.PutRequest{Entries: map[string]string{}})
			size = api.BatchEnvelopeBytes
		}
		size += n
		return &out[len(out)-1]
	}
	for p, content := range req.Entries {
		wire, value, err := t.keys.Current.Seal(Note{Project: t.project, Path: p, Content: []byte(content)})
		if err != nil {
			return nil, fmt.Errorf("personal lane of %s: %w", t.project, err)
		}
		if len(value) > t.maxEntry {
			return nil, t.tooLarge(p, len(content), len(value))
		}
		learned[wire], plain[api.EntryChecksum(value)] = p, api.EntryChecksum(content)
		add(api.BatchEntryBytes(wire, value)).Entries[wire] = value
	}
	for _, p := range req.SoftDeleteKeys {
		wire := t.keys.Current.EntryKey(t.project, p)
		learned[wire] = p
		b := add(api.EncodedLen(wire) + 1 + len(`,"soft_delete_keys":[]`))
		b.SoftDeleteKeys = append(b.SoftDeleteKeys, wire)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.names.learn(learned)
	if err := t.names.save(); err != nil {
		return nil, err
	}
	for k, v := range plain {
		t.plain[k] = v
	}
	return out, nil
}

// tooLarge is the refusal of a note whose sealed value is over the
// server's entry limit: the engine leaves it out until it changes.
func (t *Transport) tooLarge(p string, plain, sealed int) error {
	room := t.maxEntry * 3 / 4
	e := &api.Error{Status: http.StatusRequestEntityTooLarge, Code: api.CodeEntryTooLarge,
		Message: fmt.Sprintf("%s is %d bytes; sealed for the personal lane it is %d bytes, over the server's entry limit of %d: "+
			"a personal note must stay under about %d bytes", p, plain, sealed, t.maxEntry, room)}
	return e.With("key", p)
}

// LaneConfig names one personal lane to sync.
type LaneConfig struct {
	// Dir is the lane's directory: a Claude Code project's memory
	// directory, or its config directory for the user-level files.
	Dir string
	// Project is the project the lane is of: the team repo slug, or
	// UserProject.
	Project string
	// Files says which files of Dir the lane holds.
	Files    memsync.LaneFiles
	Server   string
	StateDir string
}

// OpenLane returns the engine of a personal lane and its transport, which
// also holds the lane's change waits.
func OpenLane(cfg LaneConfig, keys Keys, c *memsync.Client, opts memsync.Options) (*memsync.Engine, *Transport, error) {
	t, err := NewTransport(c, keys, cfg.Project, cfg.Files, cfg.StateDir)
	if err != nil {
		return nil, nil, err
	}
	opts.Client, opts.Remote = nil, t
	eng, err := memsync.New(memsync.Config{Dir: cfg.Dir, Repo: cfg.Project, Server: cfg.Server, StateDir: cfg.StateDir,
		Lane: t.Lane(), LaneFiles: cfg.Files}, opts)
	if err != nil {
		return nil, nil, err
	}
	return eng, t, nil
}
