package store

import "context"

// HistoryReader is the part of a Store that lists history.
type HistoryReader interface {
	History(ctx context.Context, q HistoryQuery, yield func(Revision) error) error
}

// ListHistory returns the revisions h yields for q, in order. It holds
// them all at once: ask for content only with a small Limit.
func ListHistory(ctx context.Context, h HistoryReader, q HistoryQuery) ([]Revision, error) {
	revs := []Revision{}
	err := h.History(ctx, q, func(r Revision) error {
		revs = append(revs, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return revs, nil
}
