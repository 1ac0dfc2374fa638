package server

import "sync"

// broker wakes change waits: each repo with waiters has one channel, closed
// (and replaced) when the repo changes. Writes through this server publish
// after a successful Apply; a ChangeNotifier publishes writes made
// elsewhere.
type broker struct {
	mu     sync.Mutex
	topics map[string]*topic
}

type topic struct {
	ch   chan struct{}
	subs int
}

func newBroker() *broker { return &broker{topics: make(map[string]*topic)} }

// subscribe returns a channel closed at the next change of repo and a
// release function the caller must call when it stops waiting.
func (b *broker) subscribe(repo string) (<-chan struct{}, func()) {
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

func (b *broker) release(repo string, t *topic) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t.subs--
	if t.subs == 0 && b.topics[repo] == t {
		delete(b.topics, repo)
	}
}

// publish wakes every waiter on repo.
func (b *broker) publish(repo string) {
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

// topicCount returns how many repos have waiters.
func (b *broker) topicCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.topics)
}
