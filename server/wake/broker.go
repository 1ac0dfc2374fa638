// Package wake tells change waits when a repo may have changed. A Broker
// keeps one channel per repo with waiters and closes it at the repo's next
// change; the server uses one Broker on its own for a store no other process
// writes, and a shared-database store feeds the changes other processes
// commit into one.
package wake

import (
	"sync"
)

// Broker wakes change waits: each repo with waiters has one channel, closed
// (and replaced) when the repo changes. It is safe for concurrent use.
type Broker struct {
	mu     sync.Mutex
	topics map[string]*topic
}

type topic struct {
	ch   chan struct{}
	subs int
	memo any // what Remember kept until the next change; nil for none
}

// NewBroker returns a Broker with no waiters.
func NewBroker() *Broker { return &Broker{topics: make(map[string]*topic)} }

// Subscribe returns a channel closed at the next change of repo and a
// release function the caller must call when it stops waiting; calling it
// again does nothing.
func (b *Broker) Subscribe(repo string) (<-chan struct{}, func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.topics[repo]
	if !ok {
		t = &topic{ch: make(chan struct{})}
		b.topics[repo] = t
	}
	t.subs++
	var once sync.Once
	return t.ch, func() { once.Do(func() { b.release(repo, t) }) }
}

func (b *Broker) release(repo string, t *topic) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t.subs--
	if t.subs == 0 && b.topics[repo] == t {
		delete(b.topics, repo)
	}
}

// Publish wakes every waiter on repo.
func (b *Broker) Publish(repo string) {
	b.mu.Lock()
	t, ok := b.topics[repo]
	if ok {
		delete(b.topics, repo)
	}
	b.mu.Unlock()
	if ok {
		close(t.ch)
	}
}

// Remember keeps v for the waiters on repo that hold ch, a channel
// Subscribe returned, until the repo's next change or until none wait: a
// value such as the repo's state read after subscribing, which every
// waiter that subscribes before the next change may share. It does
// nothing once ch is closed.
func (b *Broker) Remember(repo string, ch <-chan struct{}, v any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t, ok := b.topics[repo]; ok && t.ch == ch {
		t.memo = v
	}
}

// Recall returns what Remember kept for ch, false when nothing was kept or
// the repo changed since.
func (b *Broker) Recall(repo string, ch <-chan struct{}) (any, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t, ok := b.topics[repo]; ok && t.ch == ch && t.memo != nil {
		return t.memo, true
	}
	return nil, false
}

// Repos returns the repos that have waiters, in no particular order.
func (b *Broker) Repos() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	repos := make([]string, 0, len(b.topics))
	for repo := range b.topics {
		repos = append(repos, repo)
	}
	return repos
}

// Len returns how many repos have waiters.
func (b *Broker) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.topics)
}
