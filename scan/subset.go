package scan

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/detect/codec"
	"github.com/zricethezav/gitleaks/v8/report"
)

// engine runs the ruleset on one text: the prefilter picks the rules that
// can report, over the text and each of its decoding passes as gitleaks
// makes them, and gitleaks' own detector runs with those rules alone.
// Detectors are kept by rule set, since the same few sets come back.
type engine struct {
	allowlists  []*config.Allowlist // global
	filter      *prefilter
	decodeDepth int
	inlineAllow bool

	mu        sync.Mutex
	detectors map[string]*detect.Detector
}

// maxDetectors bounds the detectors kept; past it they are built anew.
const maxDetectors = 16

func newEngine(rs compiledRuleset, decodeDepth int, inlineAllow bool) (*engine, error) {
	filter, err := newPrefilter(rs)
	if err != nil {
		return nil, err
	}
	return &engine{allowlists: rs.Allowlists, filter: filter, decodeDepth: decodeDepth,
		inlineAllow: inlineAllow, detectors: map[string]*detect.Detector{}}, nil
}

// detect returns gitleaks' findings on text at path ("" for none).
func (e *engine) detect(ctx context.Context, text, path string) []report.Finding {
	ids := e.candidates(ctx, text, path)
	if len(ids) == 0 || ctx.Err() != nil {
		return nil
	}
	//lint:ignore SA1019 the v8 detector API has no other entry point
	return e.detector(ids).DetectContext(ctx, detect.Fragment{Raw: text, FilePath: path})
}

// candidates lists, sorted, the rules that can report on text at path:
// those the prefilter keeps on the text or on any of its decoding passes,
// which run as in gitleaks' detector.
func (e *engine) candidates(ctx context.Context, text, path string) []string {
	keep := map[string]bool{}
	current := text
	var segments []*codec.EncodedSegment
	decoder := codec.NewDecoder()
	for depth := 1; ctx.Err() == nil; depth++ {
		e.filter.candidates(current, path, depth > 1, e.allowlists, keep)
		if depth > e.decodeDepth || !mayDecode(decoder, current) {
			break
		}
		if current, segments = decoder.Decode(current, segments); len(segments) == 0 {
			break
		}
	}
	ids := make([]string, 0, len(keep))
	for id := range keep {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// detector is a gitleaks detector over the rules ids and the rules they
// require.
func (e *engine) detector(ids []string) *detect.Detector {
	key := strings.Join(ids, "\x00")
	e.mu.Lock()
	d, ok := e.detectors[key]
	e.mu.Unlock()
	if ok {
		return d
	}
	d = detect.NewDetector(e.subset(ids))
	d.MaxDecodeDepth = e.decodeDepth
	d.IgnoreGitleaksAllow = !e.inlineAllow
	e.mu.Lock()
	if len(e.detectors) >= maxDetectors {
		clear(e.detectors)
	}
	e.detectors[key] = d
	e.mu.Unlock()
	return d
}

// subset is the configuration restricted to the rules ids and those they
// require, compiled.
func (e *engine) subset(ids []string) config.Config {
	out := config.Config{
		Rules:      map[string]config.Rule{},
		Keywords:   map[string]struct{}{},
		Allowlists: e.allowlists,
	}
	addRule := func(id string) {
		if _, done := out.Rules[id]; done {
			return
		}
		r := e.filter.byID[id].compiled()
		out.Rules[id] = r
		out.OrderedRules = append(out.OrderedRules, id)
		for _, k := range r.Keywords {
			out.Keywords[k] = struct{}{}
		}
	}
	for _, id := range ids {
		addRule(id)
		for _, req := range e.filter.byID[id].base.RequiredRules {
			addRule(req.RuleID)
		}
	}
	return out
}

// all is the whole configuration, every rule compiled: what the plain
// gitleaks detector runs.
func (e *engine) all() config.Config {
	ids := make([]string, 0, len(e.filter.rules))
	for _, fr := range e.filter.rules {
		ids = append(ids, fr.base.RuleID)
	}
	return e.subset(ids)
}
