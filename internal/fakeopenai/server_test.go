package fakeopenai_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/internal/fakeopenai"
)

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Name string
	Data map[string]any
}

// readSSE parses an event stream the way a client does: "event:" and "data:"
// lines, a blank line ending each event.
func readSSE(t testing.TB, r io.Reader) []sseEvent {
	t.Helper()
	var events []sseEvent
	var cur sseEvent
	var data strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name == "" && data.Len() == 0 {
				continue
			}
			require.NoError(t, json.Unmarshal([]byte(data.String()), &cur.Data), "event %q data", cur.Name)
			events = append(events, cur)
			cur, data = sseEvent{}, strings.Builder{}
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data.WriteString(strings.TrimPrefix(line, "data: "))
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	require.NoError(t, sc.Err())
	require.Empty(t, cur.Name, "stream ended inside an event")
	return events
}

// find returns the first event with this name.
func find(t testing.TB, events []sseEvent, name string) sseEvent {
	t.Helper()
	for _, e := range events {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("no %s event in %v", name, names(events))
	return sseEvent{}
}

func names(events []sseEvent) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Name
	}
	return out
}

// body builds a Responses API request body.
func body(t testing.TB, tools []string, input ...map[string]any) []byte {
	t.Helper()
	ts := make([]map[string]any, 0, len(tools))
	for _, name := range tools {
		if name == "local_shell" {
			ts = append(ts, map[string]any{"type": "local_shell"})
			continue
		}
		ts = append(ts, map[string]any{"type": "function", "name": name})
	}
	b, err := json.Marshal(map[string]any{"model": "gpt-test", "stream": true, "tools": ts, "input": input})
	require.NoError(t, err)
	return b
}

func user(text string) map[string]any {
	return map[string]any{"type": "message", "role": "user", "content": []map[string]any{{"type": "input_text", "text": text}}}
}

func post(t testing.TB, srv *fakeopenai.Server, b []byte, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.BaseURL()+"/responses", bytes.NewReader(b))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func newServer(t testing.TB, script fakeopenai.Script) *fakeopenai.Server {
	t.Helper()
	srv := fakeopenai.NewServer(script, fakeopenai.Options{})
	t.Cleanup(srv.Close)
	require.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"), srv.URL)
	return srv
}

func TestTextReplyStreamsLikeTheRealAPI(t *testing.T) {
	srv := newServer(t, fakeopenai.DemoScript())
	resp := post(t, srv, body(t, []string{"exec_command"}, user("What is the ANSWER?")), nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := readSSE(t, resp.Body)

	want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"}
	require.Equal(t, want, names(events)[:4])
	tail := names(events)[len(events)-5:]
	require.Equal(t, []string{"response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"}, tail[1:])

	var text strings.Builder
	for i, e := range events {
		require.Equal(t, e.Name, e.Data["type"], "event %d type field", i)
		require.EqualValues(t, i, e.Data["sequence_number"], "event %d sequence_number", i)
		if e.Name == "response.output_text.delta" {
			text.WriteString(e.Data["delta"].(string))
		}
	}
	answer := "Here is the answer: <<<ANSWER>>>42<<<END>>>"
	require.Equal(t, answer, text.String())
	require.Equal(t, answer, find(t, events, "response.output_text.done").Data["text"])

	created := events[0].Data["response"].(map[string]any)
	require.Equal(t, "in_progress", created["status"])
	require.Equal(t, "gpt-test", created["model"])
	completed := events[len(events)-1].Data["response"].(map[string]any)
	require.Equal(t, created["id"], completed["id"])
	require.Equal(t, "completed", completed["status"])
	u := completed["usage"].(map[string]any)
	require.Greater(t, u["output_tokens"].(float64), 0.0)
	require.Equal(t, u["input_tokens"].(float64)+u["output_tokens"].(float64), u["total_tokens"])
	out := completed["output"].([]any)[0].(map[string]any)
	require.Equal(t, "message", out["type"])
	require.Equal(t, answer, out["content"].([]any)[0].(map[string]any)["text"])

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "answer", reqs[0].Rule)
	require.Equal(t, fakeopenai.KindTurn, reqs[0].Kind)
	require.Equal(t, http.StatusOK, reqs[0].Status)
	require.False(t, reqs[0].Aborted)
	require.Equal(t, []string{"exec_command"}, reqs[0].Tools)
	require.Equal(t, "What is the ANSWER?", reqs[0].LastUserText())
}

func TestShellCallTakesTheFormTheToolsListAsksFor(t *testing.T) {
	tests := []struct {
		tools    []string
		itemType string
		name     string
		args     map[string]any
	}{
		{[]string{"exec_command", "write_stdin"}, "function_call", "exec_command", map[string]any{
			"cmd": "touch x", "sandbox_permissions": "require_escalated", "justification": "May I?"}},
		{[]string{"shell"}, "function_call", "shell", map[string]any{
			"command": []any{"bash", "-lc", "touch x"}, "sandbox_permissions": "require_escalated", "justification": "May I?"}},
		{[]string{"shell_command"}, "function_call", "shell_command", map[string]any{
			"command": "touch x", "sandbox_permissions": "require_escalated", "justification": "May I?"}},
		{[]string{"local_shell"}, "local_shell_call", "", nil},
		{nil, "function_call", "exec_command", map[string]any{
			"cmd": "touch x", "sandbox_permissions": "require_escalated", "justification": "May I?"}},
	}
	for _, tt := range tests {
		t.Run(tt.itemType+"/"+tt.name, func(t *testing.T) {
			srv := newServer(t, fakeopenai.Script{{Name: "sh", Match: fakeopenai.UserSays("run"),
				Reply: fakeopenai.ShellCall("call_1", "touch x", "May I?")}})
			events := readSSE(t, post(t, srv, body(t, tt.tools, user("run it")), nil).Body)
			done := events[len(events)-2]
			require.Equal(t, "response.output_item.done", done.Name)
			item := done.Data["item"].(map[string]any)
			require.Equal(t, tt.itemType, item["type"])
			require.Equal(t, "call_1", item["call_id"])
			require.Equal(t, "completed", item["status"])
			if tt.itemType == "local_shell_call" {
				require.Equal(t, []any{"bash", "-lc", "touch x"}, item["action"].(map[string]any)["command"])
				return
			}
			require.Equal(t, tt.name, item["name"])
			var args map[string]any
			require.NoError(t, json.Unmarshal([]byte(item["arguments"].(string)), &args))
			require.Equal(t, tt.args, args)

			var streamed strings.Builder
			for _, e := range events {
				if e.Name == "response.function_call_arguments.delta" {
					streamed.WriteString(e.Data["delta"].(string))
				}
			}
			require.Equal(t, item["arguments"], streamed.String())
			require.Equal(t, "response.function_call_arguments.done", events[len(events)-3].Name)
			require.Equal(t, item["arguments"], events[len(events)-3].Data["arguments"])
		})
	}
}

func TestShellArgumentsKeepShellMetacharacters(t *testing.T) {
	srv := newServer(t, fakeopenai.DemoScript())
	events := readSSE(t, post(t, srv, body(t, []string{"exec_command"}, user("TOOL")), nil).Body)
	item := events[len(events)-2].Data["item"].(map[string]any)
	require.Contains(t, item["arguments"], `> approved.txt`)
}

func TestRulesChooseByContentNotByCallCount(t *testing.T) {
	srv := newServer(t, fakeopenai.DemoScript())
	toolCall := map[string]any{"type": "function_call", "name": "exec_command", "call_id": fakeopenai.DemoToolID, "arguments": "{}"}
	toolOut := map[string]any{"type": "function_call_output", "call_id": fakeopenai.DemoToolID, "output": "Process exited with code 0"}
	otherOut := map[string]any{"type": "function_call_output", "call_id": "call_other", "output": "x"}
	tests := []struct {
		name  string
		input []map[string]any
		rule  string
		text  string
	}{
		{"fresh turn", []map[string]any{user("TOOL")}, "tool", ""},
		{"continuation after the tool", []map[string]any{user("TOOL"), toolCall, toolOut}, "tool-done", "The command ran. <<<ANSWER>>>tool-ok<<<END>>>"},
		{"the same prompt again after the tool turn", []map[string]any{user("TOOL"), toolCall, toolOut, user("ANSWER now")}, "answer", "Here is the answer: <<<ANSWER>>>42<<<END>>>"},
		{"an unknown tool output", []map[string]any{user("hello"), otherOut}, "", "fakeopenai: no scripted reply for: hello"},
		{"no rule matches", []map[string]any{user("hello")}, "", "fakeopenai: no scripted reply for: hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := readSSE(t, post(t, srv, body(t, []string{"exec_command"}, tt.input...), nil).Body)
			reqs := srv.Requests()
			require.Equal(t, tt.rule, reqs[len(reqs)-1].Rule)
			if tt.text != "" {
				require.Equal(t, tt.text, find(t, events, "response.output_text.done").Data["text"])
			}
		})
	}
}

func TestTitleSideCallIsAnsweredBeforeTheScript(t *testing.T) {
	titlePrompt := "Generate a concise, single-line task title of at most 36 characters.\n\nUser prompt:\nWhat is the ANSWER?"
	tests := []struct {
		name   string
		header http.Header
		prompt string
		kind   fakeopenai.Kind
	}{
		{"by metadata header", http.Header{"X-Codex-Turn-Metadata": {`{"thread_source":"thread_title"}`}}, "ANSWER title please", fakeopenai.KindTitle},
		{"by prompt", nil, titlePrompt, fakeopenai.KindTitle},
		{"header says user turn", http.Header{"X-Codex-Turn-Metadata": {`{"thread_source":"user"}`}}, titlePrompt, fakeopenai.KindTurn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.NewServer(fakeopenai.DemoScript(), fakeopenai.Options{Title: "Answer the question"})
			t.Cleanup(srv.Close)
			events := readSSE(t, post(t, srv, body(t, nil, user(tt.prompt)), tt.header).Body)
			req := srv.Requests()[0]
			require.Equal(t, tt.kind, req.Kind)
			text := find(t, events, "response.output_text.done").Data["text"].(string)
			if tt.kind == fakeopenai.KindTitle {
				require.JSONEq(t, `{"title":"Answer the question"}`, text)
				require.Empty(t, req.Rule)
			} else {
				require.Equal(t, "answer", req.Rule)
			}
		})
	}
}

func TestHTTPErrorsCarryTheRealAPIBodyAndHeaders(t *testing.T) {
	tests := []struct {
		trigger    string
		status     int
		retryAfter string
		errType    string
		code       any
	}{
		{fakeopenai.Demo429, 429, "20", "requests", "rate_limit_exceeded"},
		{fakeopenai.Demo401, 401, "", "invalid_request_error", "invalid_api_key"},
		{fakeopenai.Demo500, 500, "", "server_error", nil},
	}
	srv := newServer(t, fakeopenai.DemoScript())
	for _, tt := range tests {
		t.Run(tt.trigger, func(t *testing.T) {
			resp := post(t, srv, body(t, nil, user("please "+tt.trigger)), nil)
			require.Equal(t, tt.status, resp.StatusCode)
			require.Equal(t, tt.retryAfter, resp.Header.Get("Retry-After"))
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			var got struct {
				Error map[string]any `json:"error"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
			require.Equal(t, tt.errType, got.Error["type"])
			require.Equal(t, tt.code, got.Error["code"])
			require.NotEmpty(t, got.Error["message"])
			require.Contains(t, got.Error, "param")
			reqs := srv.Requests()
			require.Equal(t, tt.status, reqs[len(reqs)-1].Status)
		})
	}
}

func TestFailedStreamEndsInResponseFailed(t *testing.T) {
	srv := newServer(t, fakeopenai.DemoScript())
	events := readSSE(t, post(t, srv, body(t, nil, user(fakeopenai.DemoFailed)), nil).Body)
	require.Equal(t, []string{"response.created", "response.in_progress", "response.failed"}, names(events))
	resp := events[2].Data["response"].(map[string]any)
	require.Equal(t, "failed", resp["status"])
	require.Equal(t, "server_error", resp["error"].(map[string]any)["code"])
}

func TestSlowStreamStopsWhenTheClientGoesAway(t *testing.T) {
	srv := newServer(t, fakeopenai.Script{{Name: "slow", Match: fakeopenai.UserSays("go"),
		Reply: fakeopenai.SlowText(strings.Repeat("x", 400), 1, time.Hour)}})
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.BaseURL()+"/responses", bytes.NewReader(body(t, nil, user("go"))))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()

	// Read until the first delta arrives, then hang up.
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		if strings.HasPrefix(line, "event: response.output_text.delta") {
			break
		}
	}
	cancel()

	waitCtx, waitCancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer waitCancel()
	got, err := srv.WaitRequest(waitCtx, func(r fakeopenai.Request) bool { return r.Status != 0 })
	require.NoError(t, err)
	require.True(t, got.Aborted)
	require.Equal(t, "slow", got.Rule)
}

func TestCloseEndsStreamsInProgress(t *testing.T) {
	srv := fakeopenai.NewServer(fakeopenai.Script{{Name: "slow", Match: fakeopenai.UserSays("go"),
		Reply: fakeopenai.SlowText(strings.Repeat("x", 400), 1, time.Hour)}}, fakeopenai.Options{})
	resp := post(t, srv, body(t, nil, user("go")), nil)
	_, err := srv.WaitRequest(context.Background(), func(r fakeopenai.Request) bool { return r.Seq == 1 })
	require.NoError(t, err)
	srv.Close() // would block for an hour if the stream ignored Close
	_, err = io.ReadAll(resp.Body)
	_ = err // Best effort: the body ends with EOF or a reset, both fine.
	got := srv.Requests()[0]
	require.True(t, got.Aborted)
}

func TestOtherEndpoints(t *testing.T) {
	srv := newServer(t, nil)
	resp, err := http.Get(srv.BaseURL() + "/models")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var models struct {
		Object string `json:"object"`
		Data   []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&models))
	require.Equal(t, "list", models.Object)
	require.Equal(t, "gpt-test", models.Data[0].ID)

	resp2, err := http.Get(srv.URL + "/v1/unknown?x=1")
	require.NoError(t, err)
	defer resp2.Body.Close()
	require.Equal(t, http.StatusNotFound, resp2.StatusCode)

	bad := post(t, srv, []byte("{not json"), nil)
	require.Equal(t, http.StatusBadRequest, bad.StatusCode)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	require.Equal(t, []string{"/v1/models", "/v1/unknown", "/v1/responses"}, []string{reqs[0].Path, reqs[1].Path, reqs[2].Path})
	require.Equal(t, []int{1, 2, 3}, []int{reqs[0].Seq, reqs[1].Seq, reqs[2].Seq})
	require.Equal(t, fakeopenai.KindOther, reqs[1].Kind)
	require.Equal(t, http.StatusBadRequest, reqs[2].Status)
}

func TestWaitRequestHonoursContext(t *testing.T) {
	srv := newServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := srv.WaitRequest(ctx, func(fakeopenai.Request) bool { return true })
	require.ErrorIs(t, err, context.Canceled)
}

func TestToolOutputText(t *testing.T) {
	tests := []struct {
		name   string
		output any
		want   string
	}{
		{"string", "exit 0", "exit 0"},
		{"content parts", []map[string]any{{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}}, "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, nil)
			out := map[string]any{"type": "function_call_output", "call_id": "c1", "output": tt.output}
			readSSE(t, post(t, srv, body(t, nil, user("x"), out), nil).Body)
			outs := srv.Requests()[0].ToolOutputs()
			require.Len(t, outs, 1)
			require.Equal(t, tt.want, outs[0].OutputText())
		})
	}
}

func TestCodexConfigWrite(t *testing.T) {
	home := filepath.Join(t.TempDir(), ".codex")
	cfg := fakeopenai.CodexConfig{BaseURL: "http://127.0.0.1:1/v1", Workdir: "/w/a \"b\""}
	require.NoError(t, cfg.Write(home))
	path := filepath.Join(home, "config.toml")
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, line := range []string{
		`model_provider = "fakeopenai"`,
		`approval_policy = "on-request"`,
		`base_url = "http://127.0.0.1:1/v1"`,
		`wire_api = "responses"`,
		`env_key = "OPENAI_API_KEY"`,
		`request_max_retries = 0`,
		`[projects."/w/a \"b\""]`,
		`model = "gpt-5.5"`,
		`"gpt-5.5" = "gpt-6-sol"`,
	} {
		require.Contains(t, string(got), line+"\n")
	}
	require.Error(t, fakeopenai.CodexConfig{}.Write(home))

	other := fakeopenai.CodexConfig{BaseURL: "http://x/v1", Model: "gpt-test"}.TOML()
	require.Contains(t, other, "model = \"gpt-test\"\n")
	require.NotContains(t, other, "model_migrations")
	require.NotContains(t, other, "[projects.")
}

func TestAdditionalToolsItemIsReadAsTools(t *testing.T) {
	srv := newServer(t, fakeopenai.Script{{Name: "sh", Match: fakeopenai.UserSays("run"),
		Reply: fakeopenai.ShellCall("call_1", "true", "")}})
	extra := map[string]any{"type": "additional_tools", "role": "developer", "tools": []map[string]any{
		{"type": "namespace", "name": "functions", "tools": []map[string]any{{"type": "custom", "name": "exec"}, {"type": "function", "name": "wait"}}},
	}}
	events := readSSE(t, post(t, srv, body(t, []string{"apply_patch"}, extra, user("run")), nil).Body)
	req := srv.Requests()[0]
	require.Equal(t, []string{"apply_patch", "functions", "exec", "wait"}, req.Tools)
	require.Len(t, req.Input, 1, "additional_tools is not conversation input")
	require.Equal(t, "sh", req.Rule)
	// No shell tool on offer: the call still uses exec_command, which Codex 0.169 routes.
	item := find(t, events, "response.output_item.done").Data["item"].(map[string]any)
	require.Equal(t, "exec_command", item["name"])
	require.JSONEq(t, `{"cmd":"true"}`, item["arguments"].(string))
}

func TestThinkingHoldsTheStreamBeforeOutput(t *testing.T) {
	srv := newServer(t, fakeopenai.Script{{Name: "think", Match: fakeopenai.UserSays("go"),
		Reply: fakeopenai.Thinking(time.Hour, fakeopenai.Text("never"))}})
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.BaseURL()+"/responses", bytes.NewReader(body(t, nil, user("go"))))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var seen []string
	for len(seen) < 2 {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "event: "); ok {
			seen = append(seen, name)
		}
	}
	require.Equal(t, []string{"response.created", "response.in_progress"}, seen)
	cancel()
	got, err := srv.WaitRequest(context.Background(), func(r fakeopenai.Request) bool { return r.Status != 0 })
	require.NoError(t, err)
	require.True(t, got.Aborted)
}
