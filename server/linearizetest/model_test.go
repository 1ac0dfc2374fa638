package linearizetest

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/teammemd/teammemd/server/api"
)

// keys are the entries of every repo the clients touch.
var keys = [...]string{"MEMORY.md", "deploy.md", "notes/ci.md"}

const nKeys = len(keys)

// Operations the clients send.
const (
	opGet    = "get"    // GET full
	opHashes = "hashes" // GET view=hashes
	opPut    = "put"    // PUT with If-Match
)

// input is one request.
type input struct {
	repo    string
	op      string
	ifMatch string        // opPut; empty sends none
	sets    [nKeys]string // opPut: the entry checksum each key is set to, "" leaves it
	deletes [nKeys]bool   // opPut: soft_delete_keys
}

// output is what the server answered, reduced to what the model checks.
type output struct {
	status   int
	version  int64
	checksum string
	sums     [nKeys]string // opGet, opHashes: entry checksums, "" absent
	deleted  [nKeys]bool   // opGet, opHashes: tombstones
}

// state is one repo as the model holds it. It is comparable, so porcupine
// compares states with ==.
type state struct {
	version  int64
	sums     [nKeys]string
	deleted  [nKeys]bool
	checksum string
}

func initial() state { return state{checksum: api.EmptyRepoChecksum} }

// step is the sequential specification of the repo API: whether the
// server may answer in with out from s, and the state after.
func step(s state, in input, out output) (bool, state) {
	switch in.op {
	case opGet, opHashes:
		if s.version == 0 {
			return out.status == http.StatusNotFound, s
		}
		return out.status == http.StatusOK && out.version == s.version && out.checksum == s.checksum &&
			out.sums == s.sums && out.deleted == s.deleted, s
	case opPut:
		if in.ifMatch != "" && in.ifMatch != s.checksum {
			return out.status == http.StatusPreconditionFailed, s
		}
		next := s.apply(in)
		return out.status == http.StatusOK && out.version == next.version && out.checksum == next.checksum, next
	}
	return false, s
}

// apply is an upsert-merge with soft deletes: a version more when anything
// changed, the same state otherwise.
func (s state) apply(in input) state {
	next := s
	changed := false
	for i := range nKeys {
		switch {
		case in.sets[i] != "" && (next.sums[i] != in.sets[i] || next.deleted[i]):
			next.sums[i], next.deleted[i], changed = in.sets[i], false, true
		case in.deletes[i] && next.sums[i] != "":
			next.sums[i], next.deleted[i], changed = "", true, true
		}
	}
	if !changed {
		return s
	}
	next.version++
	next.checksum = repoChecksum(next.sums, next.deleted)
	return next
}

// repoChecksum is the protocol's repo checksum of a state's keys.
func repoChecksum(sums [nKeys]string, deleted [nKeys]bool) string {
	live, tomb := map[string]string{}, map[string]int64{}
	for i, k := range keys {
		switch {
		case sums[i] != "":
			live[k] = sums[i]
		case deleted[i]:
			tomb[k] = 1
		}
	}
	return api.RepoChecksum(live, tomb)
}

// repoModel is the porcupine model, partitioned by repo.
var repoModel = porcupine.Model{
	Partition: partitionByRepo,
	Init:      func() any { return initial() },
	Step: func(s, in, out any) (bool, any) {
		return step(s.(state), in.(input), out.(output))
	},
	Hash: func(s any) uint64 {
		h := fnv.New64a()
		st := s.(state)
		fmt.Fprint(h, st.version, st.checksum)
		return h.Sum64()
	},
	DescribeOperation: describe,
	DescribeState: func(s any) string {
		st := s.(state)
		return fmt.Sprintf("v%d %s", st.version, shortSum(st.checksum))
	},
}

// partitionByRepo checks each repo on its own: repos share nothing.
func partitionByRepo(history []porcupine.Operation) [][]porcupine.Operation {
	byRepo := map[string][]porcupine.Operation{}
	var order []string
	for _, op := range history {
		repo := op.Input.(input).repo
		if _, ok := byRepo[repo]; !ok {
			order = append(order, repo)
		}
		byRepo[repo] = append(byRepo[repo], op)
	}
	out := make([][]porcupine.Operation, 0, len(order))
	for _, repo := range order {
		out = append(out, byRepo[repo])
	}
	return out
}

func describe(in, out any) string {
	i, o := in.(input), out.(output)
	if i.op != opPut {
		return fmt.Sprintf("%s %s -> %d v%d %s", i.op, i.repo, o.status, o.version, shortSum(o.checksum))
	}
	var parts []string
	for k := range nKeys {
		if i.sets[k] != "" {
			parts = append(parts, keys[k]+"="+shortSum(i.sets[k]))
		}
		if i.deletes[k] {
			parts = append(parts, "-"+keys[k])
		}
	}
	return fmt.Sprintf("put %s If-Match %s {%s} -> %d v%d %s", i.repo, shortSum(i.ifMatch), strings.Join(parts, " "), o.status, o.version, shortSum(o.checksum))
}

func shortSum(sum string) string {
	if s, ok := strings.CutPrefix(sum, api.ChecksumPrefix); ok && len(s) > 8 {
		return s[:8]
	}
	return sum
}
