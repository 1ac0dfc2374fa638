package claudelab

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// messagesRequest is the part of a Messages API request the fake reads.
type messagesRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	System   json.RawMessage   `json:"system"`
	Messages []message         `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text is a system prompt or a message content as plain text: a string,
// or the text of each block of a list, one per line.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks) // anything else holds no text
	parts := make([]string, len(blocks))
	for i, b := range blocks {
		parts[i] = b.Text
	}
	return strings.Join(parts, "\n")
}

// calls counts the tool calls the model made before the request. It
// counts blocks, not messages: the client merges consecutive assistant
// messages into one.
func (m messagesRequest) calls() int {
	n := 0
	for _, msg := range m.Messages {
		if msg.Role != "assistant" {
			continue
		}
		for _, b := range contentBlocks(msg.Content) {
			if b.Type == "tool_use" {
				n++
			}
		}
	}
	return n
}

// userText is the text of the first user message.
func (m messagesRequest) userText() string {
	for _, msg := range m.Messages {
		if msg.Role == "user" {
			return text(msg.Content)
		}
	}
	return ""
}

// classify tells what a request is for.
func classify(r *http.Request, body []byte) (Request, messagesRequest) {
	req := Request{Method: r.Method, Path: r.URL.RequestURI(), Kind: Other, Body: body}
	var msg messagesRequest
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/messages") || json.Unmarshal(body, &msg) != nil {
		return req, msg
	}
	switch {
	case strings.Contains(text(msg.System), recallMarker):
		req.Kind = Recall
	case len(msg.Tools) > 0:
		req.Kind = Main
	}
	return req, msg
}

// block is one content block of the model's reply: text, or a tool_use
// with its id, name and input.
type block struct {
	Type, Text, ID, Name string
	Input                any
}

// wire is the block as the API sends it; empty is the block as a stream
// starts it, its text or input still to come.
func (b block) wire(empty bool) map[string]any {
	if b.Type == "tool_use" {
		var input any = map[string]any{}
		if !empty {
			input = b.Input
		}
		return map[string]any{"type": b.Type, "id": b.ID, "name": b.Name, "input": input}
	}
	if empty {
		return map[string]any{"type": b.Type, "text": ""}
	}
	return map[string]any{"type": b.Type, "text": b.Text}
}

func textBlock(s string) block { return block{Type: "text", Text: s} }

func toolBlock(id, name string, input any) block {
	return block{Type: "tool_use", ID: id, Name: name, Input: input}
}

func (b block) stopReason() string {
	if b.Type == "tool_use" {
		return "tool_use"
	}
	return "end_turn"
}

// messageObject is the Message the API returns, with content.
func messageObject(model string, content []map[string]any, stop any) map[string]any {
	return map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 1, "output_tokens": 1},
	}
}

// writeReply answers with the one block: a stream of server-sent events
// when the request asked for one, else a Message.
func writeReply(w http.ResponseWriter, msg messagesRequest, b block) error {
	if !msg.Stream {
		writeJSON(w, messageObject(msg.Model, []map[string]any{b.wire(false)}, b.stopReason()))
		flush(w)
		return nil
	}
	events, err := streamEvents(msg.Model, b)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	for _, ev := range events {
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, ev.data); err != nil {
			return err
		}
	}
	flush(w)
	return nil
}

// flush sends what was written of the response so far.
func flush(w http.ResponseWriter) {
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}

type event struct {
	name string
	data []byte
}

// streamEvents are the events that stream the one block: message_start,
// the block's start, one delta and stop, message_delta with the stop
// reason, message_stop.
func streamEvents(model string, b block) ([]event, error) {
	delta := map[string]any{"type": "text_delta", "text": b.Text}
	if b.Type == "tool_use" {
		input, err := json.Marshal(b.Input)
		if err != nil {
			return nil, fmt.Errorf("tool input: %w", err)
		}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(input)}
	}
	evs := []map[string]any{
		{"type": "message_start", "message": messageObject(model, []map[string]any{}, nil)},
		{"type": "content_block_start", "index": 0, "content_block": b.wire(true)},
		{"type": "content_block_delta", "index": 0, "delta": delta},
		{"type": "content_block_stop", "index": 0},
		{"type": "message_delta", "delta": map[string]any{"stop_reason": b.stopReason(), "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 1}},
		{"type": "message_stop"},
	}
	out := make([]event, len(evs))
	for i, ev := range evs {
		data, err := json.Marshal(ev)
		if err != nil {
			return nil, err
		}
		out[i] = event{name: ev["type"].(string), data: data}
	}
	return out, nil
}

// Texts returns the text of a Messages request: its system prompt, then
// each message, a block at a time, in order. Other requests have none.
func (r Request) Texts() []string {
	var msg messagesRequest
	if json.Unmarshal(r.Body, &msg) != nil {
		return nil
	}
	var out []string
	if s := text(msg.System); s != "" {
		out = append(out, s)
	}
	for _, m := range msg.Messages {
		for _, b := range contentBlocks(m.Content) {
			if b.Text != "" {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// ToolResult is the result of a tool call the client sent back.
type ToolResult struct {
	// ID is the id of the tool call.
	ID string
	// Error says the tool failed; Text is what it said.
	Error bool
	Text  string
}

// ToolResults returns the tool results a Messages request carries.
func (r Request) ToolResults() []ToolResult {
	var msg messagesRequest
	if json.Unmarshal(r.Body, &msg) != nil {
		return nil
	}
	var out []ToolResult
	for _, m := range msg.Messages {
		for _, b := range contentBlocks(m.Content) {
			if b.Type == "tool_result" {
				out = append(out, ToolResult{ID: b.ToolUseID, Error: b.IsError, Text: text(b.Content)})
			}
		}
	}
	return out
}

// contentBlock is a block of a message's content.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// contentBlocks reads a message's content: a string is one text block.
func contentBlocks(raw json.RawMessage) []contentBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []contentBlock{{Type: "text", Text: s}}
	}
	var blocks []contentBlock
	_ = json.Unmarshal(raw, &blocks) // anything else holds no blocks
	return blocks
}
