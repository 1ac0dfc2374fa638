package scan

import (
	"context"
	"fmt"
)

// ScanEntries scans wire entries (key -> content), each value with its key
// as the path, and returns the sorted, unique ids of the rules that matched
// each value that holds a secret, by key. It is empty when every value is
// clean. Key names are scanned by ScanKeys.
func (s *Scanner) ScanEntries(ctx context.Context, entries map[string]string) (map[string][]string, error) {
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	hits, err := s.scanAll(ctx, keys, func(ctx context.Context, k string) ([]Finding, error) {
		return s.fileText(ctx, k, entries[k])
	})
	if err != nil {
		return nil, fmt.Errorf("scan entries: %w", err)
	}
	return hits, nil
}

// ScanKeys scans key names and returns the sorted, unique ids of the rules
// that matched each name that holds a secret, by key; empty when every name
// is clean.
func (s *Scanner) ScanKeys(ctx context.Context, keys []string) (map[string][]string, error) {
	hits, err := s.scanAll(ctx, keys, s.Key)
	if err != nil {
		return nil, fmt.Errorf("scan keys: %w", err)
	}
	return hits, nil
}

// scanAll runs scan for every key on the worker pool and collects the rule
// ids of the keys with findings.
func (s *Scanner) scanAll(ctx context.Context, keys []string, scan func(context.Context, string) ([]Finding, error)) (map[string][]string, error) {
	results := make([][]Finding, len(keys))
	err := s.forEach(ctx, len(keys), func(ctx context.Context, i int) error {
		f, err := scan(ctx, keys[i])
		results[i] = f
		return err
	})
	if err != nil {
		return nil, err
	}
	hits := map[string][]string{}
	for i, f := range results {
		if len(f) > 0 {
			hits[keys[i]] = RuleIDs(f)
		}
	}
	return hits, nil
}
