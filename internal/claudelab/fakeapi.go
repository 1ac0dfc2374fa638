package claudelab

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// maxRequestBody bounds what the fake reads of one request.
const maxRequestBody = 32 << 20

// recallMarker starts the system prompt of the side query with which the
// client asks the model which memory files to recall.
const recallMarker = "You are selecting memories"

// Kind says what a request to the fake was for.
type Kind int

const (
	// Other is any request that is neither of the two below: a title, a
	// token count, a GET.
	Other Kind = iota
	// Main is a turn of the conversation: a Messages request that offers
	// tools.
	Main
	// Recall is the side query that selects memory files to recall.
	Recall
)

func (k Kind) String() string {
	return [...]string{"other", "main", "recall"}[k]
}

// Request is one request the client sent to the fake.
type Request struct {
	Method, Path string
	Kind         Kind
	// Body is the request body as sent.
	Body []byte
}

// ToolCall is a tool the scripted model calls, with its input.
type ToolCall struct {
	Name  string
	Input any
}

// Script is what the fake model does. It answers the main request that
// follows k tool calls of the model with Calls[k], a tool call, and once the calls
// are used up ends the turn with Text. Every recall side query gets every
// team memory file it lists selected; any other request gets Text.
type Script struct {
	Calls []ToolCall
	Text  string
	// AwaitRecall holds the answer to the first main request until a
	// recall side query has arrived, at most RecallWait: the client only
	// recalls while its turn goes on.
	AwaitRecall bool
}

// RecallWait bounds how long a first main request waits for the recall
// side query when the script awaits it.
const RecallWait = 20 * time.Second

// Fake is a fake of the Anthropic Messages API with a scripted model. It
// keeps every request it answers.
type Fake struct {
	script Script

	mu       sync.Mutex
	requests []Request
	recalled chan struct{}
	once     sync.Once
}

// NewFake returns a fake whose model follows script.
func NewFake(script Script) *Fake {
	script.Text = cmp.Or(script.Text, "Done.")
	return &Fake{script: script, recalled: make(chan struct{})}
}

// Requests returns every request answered so far, in the order they
// arrived.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// ServeHTTP answers one request of the client.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	req, msg := classify(r, body)
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	switch {
	case r.Method != http.MethodPost:
		http.NotFound(w, r)
	case strings.HasSuffix(r.URL.Path, "/count_tokens"):
		writeJSON(w, map[string]int{"input_tokens": 1})
	case strings.HasSuffix(r.URL.Path, "/messages"):
		f.reply(w, r, req.Kind, msg)
	default:
		http.NotFound(w, r)
	}
}

// reply answers a Messages request as the script says.
func (f *Fake) reply(w http.ResponseWriter, r *http.Request, kind Kind, msg messagesRequest) {
	var b block
	switch {
	case kind == Recall:
		// A main reply that awaits the recall goes out after this one.
		defer f.once.Do(func() { close(f.recalled) })
		b = textBlock(recallAnswer(msg.userText()))
	case kind == Main && msg.calls() < len(f.script.Calls):
		k := msg.calls()
		if k == 0 && f.script.AwaitRecall {
			f.awaitRecall(r)
		}
		c := f.script.Calls[k]
		b = toolBlock(fmt.Sprintf("toolu_%02d", k+1), c.Name, c.Input)
	default:
		b = textBlock(f.script.Text)
	}
	if err := writeReply(w, msg, b); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// awaitRecall waits for the first recall side query, RecallWait at most.
func (f *Fake) awaitRecall(r *http.Request) {
	t := time.NewTimer(RecallWait)
	defer t.Stop()
	select {
	case <-f.recalled:
	case <-t.C:
	case <-r.Context().Done():
	}
}

// memoryPath matches a team memory file as the recall query lists it.
var memoryPath = regexp.MustCompile(`team/[A-Za-z0-9._/-]+\.md`)

// recallAnswer selects every team memory file the query lists.
func recallAnswer(query string) string {
	selected := []string{}
	_, listed, _ := strings.Cut(query, "Available memories:")
	for _, p := range memoryPath.FindAllString(listed, -1) {
		if !slices.Contains(selected, p) {
			selected = append(selected, p)
		}
	}
	data, _ := json.Marshal(map[string][]string{"selected_memories": selected})
	return string(data)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// Serve answers the client on ln until ctx is done, then shuts down,
// ending the requests still waiting.
func (f *Fake) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut) // a request still open after it is cut
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("fake Messages API: %w", err)
	}
	<-stopped
	return nil
}
