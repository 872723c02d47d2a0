package fakegemini_test

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

	"ptywright/internal/fakegemini"
)

// post sends a generateContent-style body to path and returns the response.
func post(t *testing.T, srv *fakegemini.Server, path string, body any) *http.Response {
	t.Helper()
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	resp, err := http.Post(srv.URL+path, "application/json", bytes.NewReader(raw))
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// prompt is a turn body as the Gemini CLI sends one: the session context
// and the prompt as parts of one user content, the tools offered.
func prompt(texts ...string) map[string]any {
	parts := []map[string]any{{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}}
	for _, t := range texts {
		parts = append(parts, map[string]any{"text": t})
	}
	return map[string]any{
		"contents": []any{map[string]any{"role": "user", "parts": parts}},
		"tools":    []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "read_file"}, map[string]any{"name": fakegemini.ShellTool}}}},
	}
}

// readChunks parses an SSE stream of GenerateContentResponse objects.
func readChunks(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		require.True(t, ok, "unexpected SSE line %q", line)
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(data), &v))
		out = append(out, v)
	}
	return out
}

// candidate returns the first candidate of a response: its parts and
// finishReason.
func candidate(t *testing.T, v map[string]any) ([]any, string) {
	t.Helper()
	cands, _ := v["candidates"].([]any)
	require.Len(t, cands, 1)
	c := cands[0].(map[string]any)
	content := c["content"].(map[string]any)
	require.Equal(t, "model", content["role"])
	finish, _ := c["finishReason"].(string)
	return content["parts"].([]any), finish
}

func TestStreamText(t *testing.T) {
	srv := fakegemini.NewServer(fakegemini.DemoScript(), fakegemini.Options{})
	defer srv.Close()
	resp := post(t, srv, "/v1beta/models/gemini-test:streamGenerateContent?alt=sse", prompt("What is the "+fakegemini.DemoAnswer+"?"))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	chunks := readChunks(t, resp.Body)
	require.Greater(t, len(chunks), 1, "the answer comes in pieces")
	var text strings.Builder
	for i, c := range chunks {
		parts, finish := candidate(t, c)
		for _, p := range parts {
			text.WriteString(p.(map[string]any)["text"].(string))
		}
		if i == len(chunks)-1 {
			require.Equal(t, "STOP", finish)
			usage := c["usageMetadata"].(map[string]any)
			require.Positive(t, usage["totalTokenCount"])
		} else {
			require.Empty(t, finish)
		}
		require.Equal(t, "gemini-test", c["modelVersion"])
	}
	require.Equal(t, "Here is the answer: "+fakegemini.Sentinel("42"), text.String())

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	require.Equal(t, "gemini-test", r.Model)
	require.Equal(t, "streamGenerateContent", r.APIMethod)
	require.Equal(t, "alt=sse", r.Query)
	require.Equal(t, fakegemini.KindTurn, r.Kind)
	require.Equal(t, "answer", r.Rule)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "What is the "+fakegemini.DemoAnswer+"?", r.Prompt())
	require.True(t, r.HasTool(fakegemini.ShellTool))
}

// A routing side call (generateContent asking for JSON) gets a JSON object
// that fits its schema, never a scripted reply, even when its prompt holds
// a trigger word.
func TestSideCallAnswersTheSchema(t *testing.T) {
	srv := fakegemini.NewServer(fakegemini.DemoScript(), fakegemini.Options{})
	defer srv.Close()
	body := prompt("Use the " + fakegemini.DemoTool + " now")
	body["generationConfig"] = map[string]any{
		"responseMimeType": "application/json",
		"responseJsonSchema": map[string]any{"type": "OBJECT", "properties": map[string]any{
			"complexity_reasoning": map[string]any{"type": "STRING"},
			"complexity_score":     map[string]any{"type": "INTEGER"},
			"model_choice":         map[string]any{"type": "STRING", "enum": []string{"pro", "flash"}},
			"verdict":              map[string]any{"type": "STRING", "enum": []string{"yes", "no"}},
			"ok":                   map[string]any{"type": "BOOLEAN"},
		}},
	}
	resp := post(t, srv, "/v1beta/models/gemini-lite:generateContent", body)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var v map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
	parts, finish := candidate(t, v)
	require.Equal(t, "STOP", finish)
	var answer map[string]any
	require.NoError(t, json.Unmarshal([]byte(parts[0].(map[string]any)["text"].(string)), &answer))
	require.Equal(t, map[string]any{"complexity_reasoning": "fake", "complexity_score": float64(10), "model_choice": "flash", "verdict": "yes", "ok": false}, answer)
	require.Equal(t, fakegemini.KindSide, srv.Requests()[0].Kind)
	require.Empty(t, srv.Turns())
}

func TestShellCallAndContinuation(t *testing.T) {
	srv := fakegemini.NewServer(fakegemini.DemoScript(), fakegemini.Options{})
	defer srv.Close()
	resp := post(t, srv, "/v1beta/models/m:streamGenerateContent?alt=sse", prompt("Use the "+fakegemini.DemoTool+" now"))
	chunks := readChunks(t, resp.Body)
	parts, finish := candidate(t, chunks[len(chunks)-1])
	require.Equal(t, "STOP", finish)
	fc := parts[0].(map[string]any)["functionCall"].(map[string]any)
	require.Equal(t, fakegemini.ShellTool, fc["name"])
	require.Equal(t, fakegemini.DemoToolID, fc["id"])
	require.Equal(t, "printf 'approved\\n' > "+fakegemini.DemoToolFile, fc["args"].(map[string]any)["command"])

	// The CLI sends the result back as a function response.
	cont := prompt("Use the " + fakegemini.DemoTool + " now")
	cont["contents"] = append(cont["contents"].([]any),
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": fc}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{
			"id": fakegemini.DemoToolID, "name": fakegemini.ShellTool, "response": map[string]any{"output": "Exit Code: 0"}}}}})
	resp = post(t, srv, "/v1beta/models/m:streamGenerateContent?alt=sse", cont)
	var text strings.Builder
	for _, c := range readChunks(t, resp.Body) {
		parts, _ := candidate(t, c)
		text.WriteString(parts[0].(map[string]any)["text"].(string))
	}
	require.Contains(t, text.String(), fakegemini.Sentinel("tool-ok"))
	turns := srv.Turns()
	require.Len(t, turns, 2)
	require.Equal(t, "tool-done", turns[1].Rule)
	require.Empty(t, turns[1].Prompt(), "a continuation has no new prompt")
	require.Equal(t, "Use the "+fakegemini.DemoTool+" now", turns[1].LastUserText())
	require.Len(t, turns[1].ToolResults(), 1)
}

// The CLI merges prompts whose turns were cancelled into the next prompt's
// content: the newest prompt picks the rule.
func TestNewestPromptPicksTheRule(t *testing.T) {
	srv := fakegemini.NewServer(fakegemini.DemoScript(), fakegemini.Options{})
	defer srv.Close()
	resp := post(t, srv, "/v1beta/models/m:streamGenerateContent?alt=sse", prompt(fakegemini.DemoToolDeny+" please", "What is the "+fakegemini.DemoAnswer+"?"))
	readChunks(t, resp.Body)
	require.Equal(t, "answer", srv.Turns()[0].Rule)
}

func TestErrors(t *testing.T) {
	srv := fakegemini.NewServer(fakegemini.DemoScript(), fakegemini.Options{})
	defer srv.Close()
	for _, tc := range []struct {
		word   string
		status int
		rpc    string
		retry  string
	}{
		{fakegemini.Demo401, 401, "UNAUTHENTICATED", ""},
		{fakegemini.Demo429, 429, "RESOURCE_EXHAUSTED", "20"},
		{fakegemini.Demo500, 500, "INTERNAL", ""},
		{fakegemini.DemoOverloaded, 503, "UNAVAILABLE", ""},
	} {
		resp := post(t, srv, "/v1beta/models/m:streamGenerateContent?alt=sse", prompt("Now "+tc.word))
		require.Equal(t, tc.status, resp.StatusCode, tc.word)
		require.Equal(t, tc.retry, resp.Header.Get("Retry-After"), tc.word)
		var body struct {
			Error struct {
				Code    int              `json:"code"`
				Message string           `json:"message"`
				Status  string           `json:"status"`
				Details []map[string]any `json:"details"`
			} `json:"error"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body), tc.word)
		require.Equal(t, tc.status, body.Error.Code)
		require.Equal(t, tc.rpc, body.Error.Status)
		require.NotEmpty(t, body.Error.Message)
		if tc.retry != "" {
			require.Equal(t, "20s", body.Error.Details[0]["retryDelay"])
		}
	}
	require.Contains(t, strings.ToLower(fakegemini.Overloaded().ErrorMessage), "overloaded")
}

// FLAKY: two 500s, then the answer.
func TestFlaky(t *testing.T) {
	srv := fakegemini.NewServer(fakegemini.DemoScript(), fakegemini.Options{})
	defer srv.Close()
	var codes []int
	for range 3 {
		resp := post(t, srv, "/v1beta/models/m:generateContent", prompt("Answer "+fakegemini.DemoFlaky))
		codes = append(codes, resp.StatusCode)
	}
	require.Equal(t, []int{500, 500, 200}, codes)
}

// A cut stream sends one chunk and drops the connection: the client sees
// no finishReason.
func TestCutStream(t *testing.T) {
	srv := fakegemini.NewServer(fakegemini.DemoScript(), fakegemini.Options{})
	defer srv.Close()
	resp := post(t, srv, "/v1beta/models/m:streamGenerateContent?alt=sse", prompt(fakegemini.DemoCut))
	raw, _ := io.ReadAll(resp.Body) // The error is the point.
	chunks := readChunks(t, bytes.NewReader(raw))
	require.Len(t, chunks, 1)
	_, finish := candidate(t, chunks[0])
	require.Empty(t, finish)
}

// A slow stream is cut short when the client goes away, and the request
// records it.
func TestSlowStreamAborted(t *testing.T) {
	script := fakegemini.Script{{Name: "slow", Match: fakegemini.UserSays("slow"),
		Reply: fakegemini.SlowText(strings.Repeat("x", 100), 1, 50*time.Millisecond)}}
	srv := fakegemini.NewServer(script, fakegemini.Options{})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	raw, err := json.Marshal(prompt("slow"))
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", bytes.NewReader(raw))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	buf := make([]byte, 64)
	_, err = resp.Body.Read(buf)
	require.NoError(t, err)
	cancel()
	_ = resp.Body.Close()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	r, err := srv.WaitRequest(wctx, func(r fakegemini.Request) bool { return r.Aborted })
	require.NoError(t, err)
	require.Equal(t, "slow", r.Rule)
}

func TestOtherPaths(t *testing.T) {
	srv := fakegemini.NewServer(nil, fakegemini.Options{})
	defer srv.Close()
	resp := post(t, srv, "/v1beta/models/m:countTokens", prompt("count me"))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var v map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
	require.Positive(t, v["totalTokens"])
	resp = post(t, srv, "/v1beta/nothing", prompt("x"))
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	resp = post(t, srv, "/v1beta/models/m:generateContent", prompt("unscripted"))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
	parts, _ := candidate(t, v)
	require.Contains(t, parts[0].(map[string]any)["text"], "no scripted reply for: unscripted")
	require.Len(t, srv.Requests(), 3)
	require.Equal(t, fakegemini.KindOther, srv.Requests()[0].Kind)
}

func TestSettingsWrite(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(home, "work")
	require.NoError(t, fakegemini.Settings{Workdir: work, Model: "gemini-test"}.Write(home))
	var settings map[string]any
	raw, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &settings))
	require.Equal(t, "gemini-api-key", settings["security"].(map[string]any)["auth"].(map[string]any)["selectedType"])
	require.Equal(t, "gemini-test", settings["model"].(map[string]any)["name"])
	var trusted map[string]string
	raw, err = os.ReadFile(filepath.Join(home, ".gemini", "trustedFolders.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &trusted))
	require.Equal(t, map[string]string{work: "TRUST_FOLDER"}, trusted)

	// Untrusted: no trustedFolders.json.
	other := t.TempDir()
	require.NoError(t, fakegemini.Settings{}.Write(other))
	_, err = os.Stat(filepath.Join(other, ".gemini", "trustedFolders.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
