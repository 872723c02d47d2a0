package fakeanthropic_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/internal/fakeanthropic"
)

// event is one parsed server-sent event.
type event struct {
	Name string
	Data map[string]any
}

// post sends a Messages request the way Claude Code does (with a tool list,
// so it counts as an agent-loop call unless tools is nil).
func post(t *testing.T, base string, body map[string]any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, base+"/v1/messages?beta=true", bytes.NewReader(b))
	require.NoError(t, err)
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-api-key", fakeanthropic.TestAPIKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readEvents(t *testing.T, r io.Reader) []event {
	t.Helper()
	var out []event
	sc := bufio.NewScanner(r)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d), line)
			require.Equal(t, name, d["type"], "event name and data type differ")
			out = append(out, event{Name: name, Data: d})
		}
	}
	require.NoError(t, sc.Err())
	return out
}

func names(evs []event) []string {
	var n []string
	for _, e := range evs {
		n = append(n, e.Name)
	}
	return n
}

// assemble rebuilds the content blocks from the deltas, as a client does.
func assemble(t *testing.T, evs []event) []map[string]any {
	t.Helper()
	var blocks []map[string]any
	partial := map[int]string{}
	for _, e := range evs {
		switch e.Name {
		case "content_block_start":
			blocks = append(blocks, e.Data["content_block"].(map[string]any))
		case "content_block_delta":
			i := int(e.Data["index"].(float64))
			d := e.Data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				blocks[i]["text"] = blocks[i]["text"].(string) + d["text"].(string)
			case "thinking_delta":
				blocks[i]["thinking"] = blocks[i]["thinking"].(string) + d["thinking"].(string)
			case "signature_delta":
				blocks[i]["signature"] = d["signature"]
			case "input_json_delta":
				partial[i] += d["partial_json"].(string)
			}
		case "content_block_stop":
			i := int(e.Data["index"].(float64))
			if s, ok := partial[i]; ok {
				var in any
				require.NoError(t, json.Unmarshal([]byte(s), &in))
				blocks[i]["input"] = in
			}
		}
	}
	return blocks
}

func userText(text string) map[string]any {
	return map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "<system-reminder>\nnoise\n</system-reminder>\n"},
		map[string]any{"type": "text", "text": text},
	}}
}

var bashTools = []any{map[string]any{"name": "Bash"}, map[string]any{"name": "Read"}}

func TestStreamsScriptedReplies(t *testing.T) {
	srv := fakeanthropic.New(t, []fakeanthropic.Rule{
		{When: fakeanthropic.Match{Prompt: "hello"}, Reply: fakeanthropic.Reply{Text: "Hi there, friend."}},
		{When: fakeanthropic.Match{Prompt: "make file"}, Reply: fakeanthropic.Reply{
			Text: "Creating it.", ToolUses: []fakeanthropic.ToolUse{fakeanthropic.BashTool("echo hi > file.txt", "Write file.txt")}}},
		{When: fakeanthropic.Match{Prompt: "ponder"}, Reply: fakeanthropic.Reply{Thinking: "Hmm.", Text: "42", ChunkRunes: 1}},
	})
	tests := []struct {
		name      string
		prompt    string
		wantStop  string
		wantTypes []string
		check     func(t *testing.T, blocks []map[string]any)
	}{
		{name: "text", prompt: "hello there", wantStop: "end_turn", wantTypes: []string{"text"},
			check: func(t *testing.T, b []map[string]any) { require.Equal(t, "Hi there, friend.", b[0]["text"]) }},
		{name: "tool_use", prompt: "please make file", wantStop: "tool_use", wantTypes: []string{"text", "tool_use"},
			check: func(t *testing.T, b []map[string]any) {
				require.Equal(t, "Bash", b[1]["name"])
				require.True(t, strings.HasPrefix(b[1]["id"].(string), "toolu_"))
				require.Equal(t, map[string]any{"command": "echo hi > file.txt", "description": "Write file.txt"}, b[1]["input"])
			}},
		{name: "thinking", prompt: "ponder this", wantStop: "end_turn", wantTypes: []string{"thinking", "text"},
			check: func(t *testing.T, b []map[string]any) {
				require.Equal(t, "Hmm.", b[0]["thinking"])
				require.NotEmpty(t, b[0]["signature"])
				require.Equal(t, "42", b[1]["text"])
			}},
		{name: "no rule matches", prompt: "something else", wantStop: "end_turn", wantTypes: []string{"text"},
			check: func(t *testing.T, b []map[string]any) {
				require.Equal(t, fakeanthropic.DefaultReply.Text, b[0]["text"])
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, srv.URL, map[string]any{"model": "claude-test", "stream": true, "max_tokens": 100,
				"tools": bashTools, "messages": []any{userText(tt.prompt)}})
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Equal(t, "text/event-stream; charset=utf-8", resp.Header.Get("Content-Type"))
			evs := readEvents(t, resp.Body)
			n := names(evs)
			require.Equal(t, []string{"message_start", "ping"}, n[:2])
			require.Equal(t, []string{"message_delta", "message_stop"}, n[len(n)-2:])
			start := evs[0].Data["message"].(map[string]any)
			require.Equal(t, "claude-test", start["model"])
			require.Equal(t, "assistant", start["role"])
			require.Nil(t, start["stop_reason"])
			delta := evs[len(evs)-2].Data
			require.Equal(t, tt.wantStop, delta["delta"].(map[string]any)["stop_reason"])
			require.Greater(t, delta["usage"].(map[string]any)["output_tokens"].(float64), 0.0)
			blocks := assemble(t, evs)
			var types []string
			for _, b := range blocks {
				types = append(types, b["type"].(string))
			}
			require.Equal(t, tt.wantTypes, types)
			tt.check(t, blocks)
		})
	}
}

func TestPicksStepFromConversation(t *testing.T) {
	srv := fakeanthropic.New(t, []fakeanthropic.Rule{
		{When: fakeanthropic.Match{ToolResult: "Bash", ResultContains: "doesn't want to proceed"}, Reply: fakeanthropic.Reply{Text: "denied"}},
		{When: fakeanthropic.Match{ToolResult: "Bash"}, Reply: fakeanthropic.Reply{Text: "approved"}},
		{When: fakeanthropic.Match{ToolResult: "*"}, Reply: fakeanthropic.Reply{Text: "other tool"}},
		{When: fakeanthropic.Match{Prompt: "title", SideCalls: true}, Reply: fakeanthropic.Reply{Text: "side"}},
		{When: fakeanthropic.Match{Prompt: "make file"}, Reply: fakeanthropic.Reply{Text: "prompt"}},
		{When: fakeanthropic.Match{Prompt: "again"}, Reply: fakeanthropic.Reply{Text: "again"}},
	})
	toolTurn := func(name, result string, isError bool) []any {
		return []any{
			userText("please make file"),
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "tool_use", "id": "toolu_1", "name": name, "input": map[string]any{}}}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": result, "is_error": isError},
				map[string]any{"type": "text", "text": "<system-reminder>x</system-reminder>"}}},
		}
	}
	tests := []struct {
		name     string
		tools    []any
		messages []any
		want     string
	}{
		{name: "prompt", tools: bashTools, messages: []any{userText("please make file")}, want: "prompt"},
		{name: "approved tool result", tools: bashTools, messages: toolTurn("Bash", "(Bash completed with no output)", false), want: "approved"},
		{name: "denied tool result", tools: bashTools,
			messages: toolTurn("Bash", "The user doesn't want to proceed with this tool use.", true), want: "denied"},
		{name: "result for another tool", tools: bashTools, messages: toolTurn("Read", "contents", false), want: "other tool"},
		{name: "side call without tools skips agent rules", tools: nil, messages: []any{userText("please make file")},
			want: fakeanthropic.DefaultReply.Text},
		{name: "side call rule", tools: nil, messages: []any{userText("write a title")}, want: "side"},
		{name: "prompt after interruption counts as a prompt", tools: bashTools, messages: []any{
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_9", "content": "The user doesn't want to proceed", "is_error": true},
				map[string]any{"type": "text", "text": "[Request interrupted by user for tool use]\n\ndo it again"}}}},
			want: "again"},
		{name: "merged user turns match the last prompt", tools: bashTools, messages: []any{
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "please make file"},
				map[string]any{"type": "text", "text": "and again"}}},
			map[string]any{"role": "system", "content": "env"}},
			want: "again"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := map[string]any{"model": "m", "max_tokens": 10, "messages": tt.messages}
			if tt.tools != nil {
				body["tools"] = tt.tools
			}
			resp := post(t, srv.URL, body)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			var msg struct {
				Content []struct{ Text string } `json:"content"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&msg))
			require.Equal(t, tt.want, msg.Content[0].Text)
		})
	}
}

func TestTimesLimitsARule(t *testing.T) {
	srv := fakeanthropic.New(t, []fakeanthropic.Rule{
		{When: fakeanthropic.Match{Prompt: "go"}, Reply: fakeanthropic.Reply{Error: &fakeanthropic.Overloaded}, Times: 1},
		{When: fakeanthropic.Match{Prompt: "go"}, Reply: fakeanthropic.Reply{Text: "ok"}},
	})
	body := map[string]any{"model": "m", "tools": bashTools, "messages": []any{userText("go")}}
	require.Equal(t, 529, post(t, srv.URL, body).StatusCode)
	require.Equal(t, 200, post(t, srv.URL, body).StatusCode)
	require.Equal(t, 200, post(t, srv.URL, body).StatusCode)
	reqs := srv.MessagesRequests()
	require.Len(t, reqs, 3)
	require.Equal(t, []int{0, 1, 1}, []int{reqs[0].Rule, reqs[1].Rule, reqs[2].Rule})
	require.Equal(t, []int{529, 200, 200}, []int{reqs[0].Status, reqs[1].Status, reqs[2].Status})
}

func TestErrorResponses(t *testing.T) {
	inStream := fakeanthropic.APIError{Status: 529, Type: "overloaded_error", Message: "Overloaded", InStream: true}
	tests := []struct {
		name       string
		err        fakeanthropic.APIError
		stream     bool
		wantStatus int
		wantHeader map[string]string
	}{
		{name: "rate limit", err: fakeanthropic.RateLimited, wantStatus: 429, wantHeader: map[string]string{"Retry-After": "5"}},
		{name: "overloaded", err: fakeanthropic.Overloaded, stream: true, wantStatus: 529},
		{name: "bad key no retry", err: func() fakeanthropic.APIError { e := fakeanthropic.BadAPIKey; e.NoRetry = true; return e }(),
			wantStatus: 401, wantHeader: map[string]string{"X-Should-Retry": "false"}},
		{name: "in-stream error on a non-streaming request is a plain error", err: inStream, wantStatus: 529},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.err
			srv := fakeanthropic.New(t, []fakeanthropic.Rule{{Reply: fakeanthropic.Reply{Error: &e}}})
			resp := post(t, srv.URL, map[string]any{"model": "m", "stream": tt.stream, "tools": bashTools, "messages": []any{userText("x")}})
			require.Equal(t, tt.wantStatus, resp.StatusCode)
			for k, v := range tt.wantHeader {
				require.Equal(t, v, resp.Header.Get(k), k)
			}
			var body struct {
				Type  string `json:"type"`
				Error struct {
					Type    string `json:"type"`
					Message string `json:"message"`
				} `json:"error"`
				RequestID string `json:"request_id"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
			require.Equal(t, "error", body.Type)
			require.Equal(t, tt.err.Type, body.Error.Type)
			require.Equal(t, tt.err.Message, body.Error.Message)
			require.NotEmpty(t, body.RequestID)
		})
	}

	t.Run("in-stream error event", func(t *testing.T) {
		e := inStream
		srv := fakeanthropic.New(t, []fakeanthropic.Rule{{Reply: fakeanthropic.Reply{Text: "never sent", Error: &e}}})
		resp := post(t, srv.URL, map[string]any{"model": "m", "stream": true, "tools": bashTools, "messages": []any{userText("x")}})
		require.Equal(t, http.StatusOK, resp.StatusCode)
		evs := readEvents(t, resp.Body)
		require.Equal(t, []string{"message_start", "ping", "error"}, names(evs))
		require.Equal(t, "overloaded_error", evs[2].Data["error"].(map[string]any)["type"])
	})
}

func TestSlowStreamStopsWhenClientLeaves(t *testing.T) {
	srv := fakeanthropic.New(t, []fakeanthropic.Rule{{Reply: fakeanthropic.Reply{Text: "one two three four", Delay: time.Hour}}})
	ctx, cancel := context.WithCancel(context.Background())
	b, _ := json.Marshal(map[string]any{"model": "m", "stream": true, "tools": bashTools, "messages": []any{userText("x")}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", bytes.NewReader(b))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	// Read up to the first block's start: the stream is now waiting on Delay.
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && sc.Text() != "event: content_block_start" {
	}
	cancel()
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	got, err := srv.WaitRequest(wctx, func(r fakeanthropic.Request) bool { return r.Disconnected })
	require.NoError(t, err)
	require.Equal(t, "/v1/messages", got.Path)
}

func TestOtherEndpoints(t *testing.T) {
	srv := fakeanthropic.New(t, nil)
	tests := []struct {
		method, path string
		want         int
		contains     string
	}{
		{http.MethodGet, "/api/hello", 200, "hello"},
		{http.MethodHead, "/api/hello", 200, ""},
		{http.MethodGet, "/v1/oauth/hello", 200, "hello"},
		{http.MethodPost, "/v1/messages/count_tokens", 200, "input_tokens"},
		{http.MethodGet, "/v1/models", 200, `"claude-opus-5-5"`},
		{http.MethodGet, "/v1/models/claude-x", 200, `"id":"claude-x"`},
		{http.MethodPost, "/api/event_logging/v2/batch", 200, "{}"},
		{http.MethodGet, "/api/claude_cli/bootstrap", 404, "not_found_error"},
		{http.MethodPost, "/v1/messages", 400, "invalid_request_error"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(`{"messages":`))
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, tt.want, resp.StatusCode)
			require.Contains(t, string(b), tt.contains)
		})
	}
}

func TestProxyAnswersForRealHosts(t *testing.T) {
	srv := fakeanthropic.New(t, nil)
	pem, err := os.ReadFile(srv.CACertFile)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pem))
	proxyURL, err := url.Parse(srv.ProxyURL)
	require.NoError(t, err)
	client := &http.Client{Transport: &http.Transport{
		Proxy:           http.ProxyURL(proxyURL),
		TLSClientConfig: &tls.Config{RootCAs: pool},
	}}
	defer client.CloseIdleConnections()
	for _, u := range []string{"https://api.anthropic.com/api/hello", "https://platform.claude.com/v1/oauth/hello"} {
		resp, err := client.Get(u)
		require.NoError(t, err, u)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, u)
	}
	hosts := map[string]bool{}
	for _, r := range srv.Requests() {
		hosts[r.Host] = true
	}
	require.True(t, hosts["api.anthropic.com"], "%v", hosts)
	require.True(t, hosts["platform.claude.com"], "%v", hosts)
	// A client that does not trust the fake CA must fail: the proxy really
	// terminates TLS rather than passing traffic through.
	plain := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}
	defer plain.CloseIdleConnections()
	_, err = plain.Get("https://api.anthropic.com/api/hello")
	require.Error(t, err)
}

func TestEnvPointsAtServer(t *testing.T) {
	srv := fakeanthropic.New(t, nil)
	env := map[string]string{}
	for _, kv := range srv.Env() {
		k, v, ok := strings.Cut(kv, "=")
		require.True(t, ok, kv)
		env[k] = v
	}
	require.Equal(t, srv.URL, env["ANTHROPIC_BASE_URL"])
	require.Equal(t, srv.ProxyURL, env["HTTPS_PROXY"])
	require.Equal(t, srv.CACertFile, env["NODE_EXTRA_CA_CERTS"])
	require.Equal(t, fakeanthropic.TestAPIKey, env["ANTHROPIC_API_KEY"])
	require.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"))
	require.FileExists(t, srv.CACertFile)
	srv.Close()
	require.NoFileExists(t, srv.CACertFile)
	_, err := srv.WaitRequest(context.Background(), func(fakeanthropic.Request) bool { return false })
	require.ErrorIs(t, err, fakeanthropic.ErrClosed)
}

func TestReplyJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    fakeanthropic.Reply
		wantErr string
	}{
		{name: "duration strings", in: `{"text":"x","delay":"250ms","start_delay":"2s"}`,
			want: fakeanthropic.Reply{Text: "x", Delay: 250 * time.Millisecond, StartDelay: 2 * time.Second}},
		{name: "nanoseconds", in: `{"delay":1000}`, want: fakeanthropic.Reply{Delay: time.Microsecond}},
		{name: "tool use and error", in: `{"tool_uses":[{"name":"Bash","input":{"command":"ls"}}],"error":{"status":429,"type":"rate_limit_error","message":"m","no_retry":true}}`,
			want: fakeanthropic.Reply{ToolUses: []fakeanthropic.ToolUse{{Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}},
				Error: &fakeanthropic.APIError{Status: 429, Type: "rate_limit_error", Message: "m", NoRetry: true}}},
		{name: "bad duration names the field", in: `{"start_delay":"soon"}`, wantErr: `"start_delay"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got fakeanthropic.Reply
			err := json.Unmarshal([]byte(tt.in), &got)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

// The rules used to capture testdata/fixtures/claude_code must keep loading,
// and keep answering the prompts CAPTURES.md lists with the intended step.
func TestCaptureRules(t *testing.T) {
	b, err := os.ReadFile("testdata/capture_rules.json")
	require.NoError(t, err)
	var rules []fakeanthropic.Rule
	require.NoError(t, json.Unmarshal(b, &rules))
	srv := fakeanthropic.New(t, rules)
	tests := []struct {
		prompt   string
		wantTool string
		wantErr  int
	}{
		{prompt: "please make file", wantTool: "Bash"},
		{prompt: "ask me something", wantTool: "AskUserQuestion"},
		{prompt: "now exit plan", wantTool: "ExitPlanMode"},
		{prompt: "write notes please", wantTool: "Write"},
		{prompt: "rate limit test", wantErr: 429},
		{prompt: "retry overloaded test", wantErr: 529},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			resp := post(t, srv.URL, map[string]any{"model": "m", "tools": bashTools, "messages": []any{userText(tt.prompt)}})
			if tt.wantErr != 0 {
				require.Equal(t, tt.wantErr, resp.StatusCode)
				return
			}
			require.Equal(t, http.StatusOK, resp.StatusCode)
			var msg struct {
				Content []struct{ Type, Name string } `json:"content"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&msg))
			require.Equal(t, tt.wantTool, msg.Content[len(msg.Content)-1].Name)
		})
	}
}
