package claudelab

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
)

// post sends a Messages request to the fake and returns the response.
func post(t *testing.T, srv *httptest.Server, body string) *http.Response {
	t.Helper()
	resp, err := srv.Client().Post(srv.URL+"/v1/messages?beta=true", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sse reads a stream of server-sent events: each event's name and data.
func sse(t *testing.T, resp *http.Response) (names []string, data []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			names = append(names, name)
		}
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				t.Fatalf("event data %s: %v", d, err)
			}
			data = append(data, m)
		}
	}
	return names, data
}

var streamOrder = []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}

const (
	mainTurn  = `{"model":"m","stream":true,"tools":[{"name":"Read"}],"messages":[{"role":"user","content":"hi"}]}`
	afterCall = `{"model":"m","stream":true,"tools":[{"name":"Read"}],"messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"Read","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"x"}]}]}`
	recallQuery = `{"model":"m","max_tokens":2560,"system":[{"type":"text","text":"You are selecting memories that will be useful"}],` +
		`"messages":[{"role":"user","content":[{"type":"text","text":"Available memories:\n- [project] team/build.md (2026-11-25T19:41:58.858Z): how to build\n- [project] team/ops/deploy.md (t): deploy"}]}]}`
)

func TestFakeStreamsToolCallThenText(t *testing.T) {
	f := NewFake(Script{Calls: []ToolCall{{Name: "Read", Input: map[string]string{"file_path": "/x/README.md"}}}, Text: "The end."})
	srv := httptest.NewServer(f)
	defer srv.Close()

	names, data := sse(t, post(t, srv, mainTurn))
	if !slices.Equal(names, streamOrder) {
		t.Fatalf("events of the first turn = %q, want %q", names, streamOrder)
	}
	start := data[1]["content_block"].(map[string]any)
	delta := data[2]["delta"].(map[string]any)
	stop := data[4]["delta"].(map[string]any)["stop_reason"]
	if start["type"] != "tool_use" || start["name"] != "Read" || delta["partial_json"] != `{"file_path":"/x/README.md"}` || stop != "tool_use" {
		t.Errorf("first turn = %v, %v, stop %v, want a Read of /x/README.md that stops for tool_use", start, delta, stop)
	}

	names, data = sse(t, post(t, srv, afterCall))
	if !slices.Equal(names, streamOrder) {
		t.Fatalf("events of the second turn = %q, want %q", names, streamOrder)
	}
	start = data[1]["content_block"].(map[string]any)
	delta = data[2]["delta"].(map[string]any)
	if text, ok := start["text"]; !ok || text != "" || delta["text"] != "The end." || data[4]["delta"].(map[string]any)["stop_reason"] != "end_turn" {
		t.Errorf("second turn = %v, %v, want the text %q that ends the turn", start, delta, "The end.")
	}
}

func TestFakeRecallSelectsListedTeamMemories(t *testing.T) {
	f := NewFake(Script{})
	srv := httptest.NewServer(f)
	defer srv.Close()
	var msg struct {
		Content []struct{ Type, Text string }
		Stop    string `json:"stop_reason"`
	}
	if err := json.NewDecoder(post(t, srv, recallQuery).Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	want := `{"selected_memories":["team/build.md","team/ops/deploy.md"]}`
	if len(msg.Content) != 1 || msg.Content[0].Text != want || msg.Stop != "end_turn" {
		t.Errorf("recall answer = %+v, want the text %s", msg, want)
	}
}

func TestFakeKeepsRequests(t *testing.T) {
	f := NewFake(Script{})
	srv := httptest.NewServer(f)
	defer srv.Close()
	post(t, srv, mainTurn)
	post(t, srv, recallQuery)
	post(t, srv, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"quota"}]}`)
	resp, err := srv.Client().Get(srv.URL + "/api/hello")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /api/hello = %d, want 404", resp.StatusCode)
	}
	var got []string
	for _, r := range f.Requests() {
		got = append(got, r.Method+" "+r.Path+" "+r.Kind.String())
	}
	want := []string{"POST /v1/messages?beta=true main", "POST /v1/messages?beta=true recall", "POST /v1/messages?beta=true other", "GET /api/hello other"}
	if !slices.Equal(got, want) {
		t.Errorf("Requests() = %q, want %q", got, want)
	}
	if body := string(f.Requests()[0].Body); body != mainTurn {
		t.Errorf("Requests()[0].Body = %s, want %s", body, mainTurn)
	}
}

// The first main reply waits for the recall query when the script says
// so, and goes out after RecallWait when no recall comes.
func TestFakeAwaitsRecall(t *testing.T) {
	request := func(body string) *http.Request {
		return httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body))
	}
	synctest.Test(t, func(t *testing.T) {
		f := NewFake(Script{Calls: []ToolCall{{Name: "Read", Input: map[string]string{}}}, AwaitRecall: true})
		main := httptest.NewRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			f.ServeHTTP(main, request(mainTurn))
		}()
		synctest.Wait()
		if main.Body.Len() != 0 {
			t.Fatalf("main turn answered before the recall query: %s", main.Body)
		}
		f.ServeHTTP(httptest.NewRecorder(), request(recallQuery))
		<-done
		if !strings.Contains(main.Body.String(), `"tool_use"`) {
			t.Errorf("main turn after the recall = %s, want the tool call", main.Body)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		f := NewFake(Script{Calls: []ToolCall{{Name: "Read", Input: map[string]string{}}}, AwaitRecall: true})
		main := httptest.NewRecorder()
		f.ServeHTTP(main, request(mainTurn))
		if !strings.Contains(main.Body.String(), `"tool_use"`) {
			t.Errorf("main turn without a recall = %s, want the tool call after %s", main.Body, RecallWait)
		}
	})
}

func TestRequestTextsAndToolResults(t *testing.T) {
	body := `{"system":[{"type":"text","text":"sys"}],"messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"Write","input":{}},{"type":"tool_use","id":"toolu_02","name":"Write","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"File created"},` +
		`{"type":"tool_result","content":[{"type":"text","text":"refused"}],"is_error":true,"tool_use_id":"toolu_02"}]},` +
		`{"role":"system","content":[{"type":"text","text":"SessionStart:startup hook success: index"}]}]}`
	r := Request{Body: []byte(body)}
	if got, want := r.Texts(), []string{"sys", "hi", "SessionStart:startup hook success: index"}; !slices.Equal(got, want) {
		t.Errorf("Texts() = %q, want %q", got, want)
	}
	want := []ToolResult{{ID: "toolu_01", Text: "File created"}, {ID: "toolu_02", Error: true, Text: "refused"}}
	if got := r.ToolResults(); !slices.Equal(got, want) {
		t.Errorf("ToolResults() = %+v, want %+v", got, want)
	}
	if got := (Request{Body: []byte("not json")}).Texts(); got != nil {
		t.Errorf("Texts(not JSON) = %q, want none", got)
	}
}
