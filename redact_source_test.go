//go:build unix

package ptywright_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/events"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/manifest"
)

// sourceSecret is a secret only the caller knows: no default pattern finds
// it, so only the redactor given to the session or handle can hide it.
const sourceSecret = "plugh-xyzzy-42"

// sourceProgram shows the secret on the screen, in the window title and in
// every answer to a line typed.
const sourceProgram = `printf '\033]0;vault ` + sourceSecret + `\007'; printf 'magic word is ` + sourceSecret + `\nREADY> '; ` +
	`while read -r line; do printf 'got %s, magic word is ` + sourceSecret + `\nREADY> ' "$line"; done`

// leakyLua quotes the screen's secret row in every text a plugin can hand
// the host: evidence, metadata, the assessment's operator excerpt and
// anomalies, an explanation's reasons, a projection, an expectation's and
// a wait's captures.
const leakyLua = `
local M = {}
local action, matcher = ptywright.action, ptywright.matcher

local function secret_row(screen)
  local row = ""
  for line in string.gmatch(screen or "", "[^\n]+") do
    if string.find(line, "magic word", 1, true) then row = line end
  end
  return row
end

function M.classify(ctx)
  local row = secret_row(ctx.screen)
  local r = { state = "ready", confidence = 1, evidence = row, rule = "leaky.ready",
    metadata = { quoted = row, rows = { row }, title = ctx.title },
    assessment = { availability = "supported", business_state = "idle", input_mode = "freeform", ui_context = "normal_prompt",
      operator_blocked_excerpt = row, parser_metadata = { provider_id = "leaky" },
      anomalies = { { code = "unrecognized_screen", message = "row 1: " .. row } } } }
  if ctx.explain then
    r.considered = { { state = "busy", rule = "leaky.busy", reason = "not busy: " .. row } }
  end
  return r
end

function M.project(ctx)
  return { dialog_text = secret_row(ctx.screen), projector_id = "leaky.v1" }
end

-- The expectation captures the secret row the answer shows.
function M.poke(p)
  return { actions = { action.text("poke"), action.key("enter") }, expect = matcher.screen_regex("got poke, (magic word is [a-z0-9-]+)") }
end

-- Awaits a state that never comes: not sent, and the reason quotes the evidence.
function M.stuck(p)
  return { actions = { action.text("stuck"), action.key("enter") }, await = { states = { "nowhere" }, within_ms = 100 } }
end

function M.wait_turn_matcher(p) return matcher.screen_regex("(magic word is [a-z0-9-]+)") end
function M.never_matcher(p) return matcher.contains_text("never shown") end

return M
`

// startLeaky starts sourceProgram with sessionRed and a handle over it with
// the leaky plugin and handleRed, a bus and a lifecycle; it returns the
// handle and what the bus and OnLifecycle reported.
func startLeaky(t *testing.T, sessionRed, handleRed *ptywright.Redactor) (*ptywright.ExtensionHandle, func() []string) {
	t.Helper()
	m := manifest.Manifest{Name: "leaky", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua,
		Entrypoint: "main.lua", Permissions: manifest.AllPermissions()}
	ext, err := luahost.New(m, []byte(leakyLua), luahost.Options{})
	require.NoError(t, err)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", sourceProgram},
		Size: ptywright.Size{Rows: 12, Cols: 60}, Redactor: sessionRed})
	if err != nil {
		_ = ext.Close()
	}
	require.NoError(t, err)
	var mu sync.Mutex
	var heard []string
	note := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(err.Error())
		}
		mu.Lock()
		heard = append(heard, string(b))
		mu.Unlock()
	}
	bus := events.New(nil)
	t.Cleanup(bus.Subscribe(func(ev events.Event) { note(ev) }))
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{
		Redactor:    handleRed,
		Events:      bus,
		Scope:       events.Scope{Session: "s1", Adapter: "a1"},
		Lifecycle:   &contract.LifecycleOptions{},
		OnLifecycle: func(st contract.LifecycleStatus) { note(st) },
	})
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	waitFor(t, s, ptywright.ContainsText("READY>"))
	return h, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), heard...)
	}
}

// hidden fails unless what, as JSON, is free of the secret and shows that
// something was redacted in it.
func hidden(t *testing.T, name string, what any) {
	t.Helper()
	b, err := json.Marshal(what)
	require.NoError(t, err, name)
	requireNoFragment(t, string(b), sourceSecret)
	require.Contains(t, string(b), "[REDACTED]", "%s: nothing was redacted, so nothing was quoted: %s", name, b)
}

// TestReadsAreRedactedAtTheSource: every read of a handle and of its session
// hides a secret known only to the redactor they were given, with nothing
// asked of the caller, whether the redactor was given to the session (the
// handle takes its session's) or to the handle.
func TestReadsAreRedactedAtTheSource(t *testing.T) {
	red, err := ptywright.RedactionPolicy{Enabled: true, ExtraLiterals: []string{sourceSecret}}.Compile()
	require.NoError(t, err)
	row := "magic word is " + sourceSecret
	require.Equal(t, row, ptywright.DefaultRedactor().Redact(row), "the default policy must not know the secret")

	for _, tc := range []struct {
		name               string
		session, handle    *ptywright.Redactor
		sessionReadsRedact bool
	}{
		{name: "given to the session", session: red, sessionReadsRedact: true},
		{name: "given to the handle", handle: red},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tuitest.NoLeak(t)
			h, heard := startLeaky(t, tc.session, tc.handle)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()

			st, err := h.State(ctx)
			require.NoError(t, err)
			require.Equal(t, "ready", st.State)
			hidden(t, "state", st)
			require.Equal(t, "magic word is [REDACTED]", st.Evidence)
			require.Equal(t, "magic word is [REDACTED]", st.Assessment.OperatorBlockedExcerpt)
			require.Equal(t, "row 1: magic word is [REDACTED]", st.Assessment.Anomalies[0].Message)
			require.Equal(t, "row 1: magic word is [REDACTED]", st.Assessment.ParserMetadata.Anomalies[0].Message)
			require.Equal(t, "vault [REDACTED]", st.Metadata["title"])

			sent, err := h.Send(ctx, "poke", nil)
			require.NoError(t, err)
			require.Equal(t, ptywright.EffectConfirmed, sent.Receipt.Effect, "%+v", sent.Receipt)
			hidden(t, "send", sent)
			require.Equal(t, "magic word is [REDACTED]", *sent.Receipt.Evidence.Capture)

			stuck, err := h.Send(ctx, "stuck", nil)
			require.NoError(t, err)
			require.Equal(t, ptywright.EffectNotSent, stuck.Receipt.Effect)
			hidden(t, "not sent receipt", stuck.Receipt)

			st, res, err := h.Wait(ctx, "", nil)
			require.NoError(t, err)
			hidden(t, "wait state", st)
			hidden(t, "wait result", res)
			require.Equal(t, "magic word is [REDACTED]", *res.Outcome.Capture)

			_, res, err = h.Wait(ctx, contract.LifecycleWaitIntent, json.RawMessage(`{"state":"waiting"}`))
			require.NoError(t, err)
			hidden(t, "lifecycle wait result", res)

			wctx, wcancel := context.WithTimeout(ctx, 200*time.Millisecond)
			_, _, err = h.Wait(wctx, "never_matcher", nil)
			wcancel()
			var we *ptywright.WaitError
			require.True(t, errors.As(err, &we), "%v", err)
			require.NotNil(t, we.Explanation)
			hidden(t, "wait error", we)
			require.Empty(t, we.Explanation.Screen)

			turn, err := h.Turn(ctx, "poke", nil, "", nil)
			require.NoError(t, err)
			hidden(t, "turn", turn)

			for name, opts := range map[string][]ptywright.ExplainOption{
				"explain": nil, "explain last": {ptywright.ExplainLast()}, "explain at": {ptywright.ExplainAt(turn.State.Sequence)},
			} {
				x, err := h.Explain(ctx, opts...)
				require.NoError(t, err, name)
				hidden(t, name, x)
				require.True(t, strings.HasSuffix(x.Considered[0].Reason, "magic word is [REDACTED]"), "%s: %q", name, x.Considered[0].Reason)
				require.Empty(t, x.Screen, "%s: the raw screen stays inside", name)
			}

			in, err := h.Inspect(ctx, nil)
			require.NoError(t, err)
			hidden(t, "inspection", in)
			for name, text := range map[string]string{"plain": in.PlainText, "body": in.BodyText, "tail": in.TranscriptTail,
				"dialog": in.Projection.DialogText, "raw": in.Projection.RawText} {
				require.Contains(t, text, "[REDACTED]", name)
			}

			p, err := h.Project(ctx, 0, 0)
			require.NoError(t, err)
			hidden(t, "projection", p)
			require.Equal(t, "got poke, magic word is [REDACTED]", p.DialogText)

			ans, err := h.Extract(ctx, ptywright.Extraction{Regex: `magic word is (\S+)`})
			require.NoError(t, err)
			require.Equal(t, "[REDACTED]", ans.Text)

			// What the handle emits carries no screen text at all.
			for _, msg := range heard() {
				requireNoFragment(t, msg, sourceSecret)
			}
			require.NotEmpty(t, heard(), "the bus heard the first state and OnLifecycle the turn")

			s := h.Session()
			if !tc.sessionReadsRedact {
				// A session started without a redactor reads with the
				// default policy, which does not know the secret.
				require.Contains(t, s.Transcript(nil), sourceSecret)
				return
			}
			snap := s.Snapshot(ptywright.SnapshotOptions{Cells: true, Scrollback: true})
			hidden(t, "snapshot", snap)
			require.Equal(t, "vault [REDACTED]", snap.Title)
			var cells strings.Builder
			for _, c := range snap.Cells {
				cells.WriteString(c.Text)
			}
			requireNoFragment(t, cells.String(), sourceSecret)
			hidden(t, "transcript", s.Transcript(nil))
			hidden(t, "output", s.OutputSince(0, nil).Text)
			sres, err := s.Wait(ctx, ptywright.ScreenRegex(`(magic word is \S+)`))
			require.NoError(t, err)
			hidden(t, "session wait", sres)
			wctx, wcancel = context.WithTimeout(ctx, 100*time.Millisecond)
			_, err = s.Wait(wctx, ptywright.ContainsText("never shown"))
			wcancel()
			require.True(t, errors.As(err, &we), "%v", err)
			hidden(t, "session wait error", we)
		})
	}
}

// TestRawReadsOnlyWhenAskedFor: a read is raw only when the caller names
// NoRedaction, for that read or for the whole handle.
func TestRawReadsOnlyWhenAskedFor(t *testing.T) {
	tuitest.NoLeak(t)
	red, err := ptywright.RedactionPolicy{Enabled: true, ExtraLiterals: []string{sourceSecret}}.Compile()
	require.NoError(t, err)
	h, _ := startLeaky(t, red, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	raw := ptywright.NoRedaction()
	shows := func(name string, what any) {
		t.Helper()
		b, err := json.Marshal(what)
		require.NoError(t, err, name)
		require.Contains(t, string(b), sourceSecret, "%s asked for raw", name)
	}

	x, err := h.Explain(ctx, ptywright.ExplainRedactor(raw))
	require.NoError(t, err)
	shows("explanation", x)
	require.Contains(t, x.Screen, sourceSecret, "a raw explanation keeps the screen it explains")
	in, err := h.Inspect(ctx, raw)
	require.NoError(t, err)
	shows("inspection", in)
	ans, err := h.Extract(ctx, ptywright.Extraction{Regex: `magic word is (\S+)`, Redactor: raw})
	require.NoError(t, err)
	require.Equal(t, sourceSecret, ans.Text)
	s := h.Session()
	shows("snapshot", s.Snapshot(ptywright.SnapshotOptions{Raw: true}))
	shows("transcript", s.Transcript(raw))
	res, err := s.Wait(ctx, ptywright.ScreenRegex(`(magic word is \S+)`), ptywright.WithRedactor(raw))
	require.NoError(t, err)
	shows("session wait", res)

	// A handle given NoRedaction over a redacting session hands out raw
	// states: its own choice wins over its session's.
	m := manifest.Manifest{Name: "leaky", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua,
		Entrypoint: "main.lua", Permissions: manifest.AllPermissions()}
	ext, err := luahost.New(m, []byte(leakyLua), luahost.Options{})
	require.NoError(t, err)
	s2 := start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", sourceProgram}, Redactor: red})
	h2 := ptywright.NewExtensionHandle(s2, ext, ptywright.HandleOptions{Redactor: raw})
	t.Cleanup(func() { _ = h2.Close() })
	waitFor(t, s2, ptywright.ContainsText("READY>"))
	st, err := h2.State(ctx)
	require.NoError(t, err)
	shows("state", st)
	hidden(t, "the session's own snapshot", s2.Snapshot(ptywright.SnapshotOptions{}))
	require.Equal(t, fmt.Sprintf("magic word is %s", sourceSecret), st.Evidence)
}
