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
	"ptywright/internal/tuitest"
	"ptywright/manifest"
)

// replExtension is a small extension written in Go, as a Go user of the
// library would write one, for a shell-script REPL that prints "READY> ".
type replExtension struct {
	mu          sync.Mutex
	seen        []ptywright.ClassifyContext
	waitParams  []json.RawMessage
	failClassif bool
	closed      bool
}

func (e *replExtension) Manifest() manifest.Manifest {
	return manifest.Manifest{Name: "repl", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
}

func (e *replExtension) Classify(_ context.Context, cc ptywright.ClassifyContext) (ptywright.StateSnapshot, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, cc)
	if e.failClassif {
		return ptywright.StateSnapshot{}, errors.New("classifier exploded: token=abc123secret")
	}
	lines := strings.Split(cc.BodyText, "\n")
	last := ""
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			last = l
		}
	}
	switch {
	case strings.HasPrefix(last, "READY>") && strings.Contains(cc.BodyText, "answer:"):
		return ptywright.StateSnapshot{State: "completed_turn", Confidence: 0.9, Evidence: "answer then prompt"}, nil
	case strings.HasPrefix(last, "READY>"):
		return ptywright.StateSnapshot{State: "ready", Confidence: 0.9, Evidence: "prompt"}, nil
	}
	return ptywright.StateSnapshot{State: "starting", Confidence: 0.1, Evidence: "no prompt"}, nil
}

func (e *replExtension) Plan(_ context.Context, intent string, params json.RawMessage) (ptywright.ActionPlan, error) {
	var p struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return ptywright.ActionPlan{}, err
	}
	switch intent {
	case "send_prompt":
		li := "prompt_submitted"
		return ptywright.ActionPlan{Actions: []ptywright.Action{ptywright.Text(p.Prompt), ptywright.Press(ptywright.KeyEnter)}, LastIntent: &li}, nil
	case "forget":
		empty := ""
		return ptywright.ActionPlan{LastIntent: &empty}, nil
	case "noop":
		return ptywright.ActionPlan{}, nil
	}
	return ptywright.ActionPlan{}, fmt.Errorf("unknown intent %q", intent)
}

func (e *replExtension) WaitMatcher(_ context.Context, intent string, params json.RawMessage) (ptywright.Matcher, error) {
	e.mu.Lock()
	e.waitParams = append(e.waitParams, params)
	e.mu.Unlock()
	var p struct {
		Stable int64  `json:"completed_turn_stable_ms"`
		Text   string `json:"text"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return ptywright.Matcher{}, err
	}
	switch intent {
	case "wait_turn_matcher":
		return ptywright.All(ptywright.ScreenRegex(`answer: .*\nREADY> $|answer: .*\nREADY>$`), ptywright.ScreenStable(time.Duration(p.Stable)*time.Millisecond)), nil
	case "wait_text_matcher":
		return ptywright.ContainsText(p.Text), nil
	}
	return ptywright.Matcher{}, fmt.Errorf("unknown wait intent %q", intent)
}

func (e *replExtension) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	return nil
}

const replScript = `while printf 'READY> '; read -r line; do sleep 0.05; echo "answer: $line"; done`

func startRepl(t *testing.T, ext *replExtension) *ptywright.ExtensionHandle {
	t.Helper()
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", replScript}})
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{})
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	waitFor(t, s, ptywright.ContainsText("READY>"))
	return h
}

func TestExtensionHandleTurnLoop(t *testing.T) {
	tuitest.NoLeak(t)
	ext := &replExtension{}
	h := startRepl(t, ext)
	ctx := context.Background()

	st, err := h.State(ctx)
	require.NoError(t, err)
	require.Equal(t, "ready", st.State)
	require.Nil(t, st.LastIntent)

	sent, err := h.Send(ctx, "send_prompt", json.RawMessage(`{"prompt":"hello"}`))
	require.NoError(t, err)
	require.Equal(t, "prompt_submitted", *sent.State.LastIntent)
	require.Equal(t, ptywright.EffectUnverified, sent.Receipt.Effect, "the plan declares no expectation")
	require.Equal(t, len("hello")+1, sent.Receipt.Bytes)
	require.Equal(t, 1, sent.Receipt.Attempts)
	require.Equal(t, "ready", sent.Receipt.StateBefore)

	st, res, err := h.Wait(ctx, "", nil)
	require.NoError(t, err)
	require.Equal(t, "completed_turn", st.State)
	require.Equal(t, "prompt_submitted", *st.LastIntent)
	require.Equal(t, res.Sequence, st.Sequence)
	require.Contains(t, res.Snapshot.PlainText, "answer: hello")

	// The host injected its settle threshold into the wait params.
	require.JSONEq(t, `{"completed_turn_stable_ms":300}`, string(ext.waitParams[0]))

	// The classifier saw the real stability, the intent and a transcript.
	last := ext.seen[len(ext.seen)-1]
	require.NotNil(t, last.StableMs)
	require.GreaterOrEqual(t, *last.StableMs, int64(300))
	require.Equal(t, int64(300), *last.CompletedTurnStableMs)
	require.Contains(t, *last.Transcript, "answer: hello")

	// An empty last_intent clears it; absent keeps it.
	sent, err = h.Send(ctx, "noop", nil)
	require.NoError(t, err)
	require.Equal(t, "prompt_submitted", *sent.State.LastIntent)
	require.Equal(t, 0, sent.Receipt.Attempts)
	sent, err = h.Send(ctx, "forget", nil)
	require.NoError(t, err)
	require.Nil(t, sent.State.LastIntent)
}

func TestExtensionHandleErrors(t *testing.T) {
	ext := &replExtension{}
	h := startRepl(t, ext)
	ctx := context.Background()

	_, err := h.Send(ctx, "fly", nil)
	require.ErrorContains(t, err, `unknown intent "fly"`)
	_, err = h.Send(ctx, "", nil)
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
	_, _, err = h.Wait(ctx, "wait_nothing", nil)
	require.ErrorContains(t, err, "unknown wait intent")

	tctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, _, err = h.Wait(tctx, "wait_text_matcher", json.RawMessage(`{"text":"never"}`))
	require.ErrorIs(t, err, ptywright.ErrTimeout)

	ext.mu.Lock()
	ext.failClassif = true
	ext.mu.Unlock()
	st, err := h.State(ctx)
	require.NoError(t, err)
	require.Equal(t, contract.PluginErrorState, st.State)
	require.Contains(t, st.Evidence, "classifier exploded")
	require.NotContains(t, st.Evidence, "abc123secret", "plugin errors are redacted")

	require.NoError(t, h.Close())
	require.True(t, ext.closed)
	_, err = h.State(ctx)
	require.ErrorIs(t, err, ptywright.ErrSessionClosed)
}

func TestExtensionHandleTurnIsAtomic(t *testing.T) {
	ext := &replExtension{}
	h := startRepl(t, ext)
	ctx := context.Background()

	done := make(chan error, 1)
	go func() {
		_, err := h.Turn(ctx, "send_prompt", json.RawMessage(`{"prompt":"first"}`), "", nil)
		done <- err
	}()
	// The turn holds the lock from its send to the end of its wait, which
	// ends only once the answer has been on screen for the settle window
	// (300 ms). A State call made as soon as the typed prompt shows must
	// queue behind it: it classifies the answered screen, settled.
	waitFor(t, h.Session(), ptywright.ContainsText("first"))
	st, err := h.State(ctx)
	require.NoError(t, err)
	require.NoError(t, <-done)
	require.Equal(t, "completed_turn", st.State, "State ran inside the turn")
	ext.mu.Lock()
	last := ext.seen[len(ext.seen)-1]
	ext.mu.Unlock()
	require.GreaterOrEqual(t, *last.StableMs, int64(300), "State classified before the turn's wait had settled")
}

func TestNewClassifyContext(t *testing.T) {
	snap := ptywright.ScreenSnapshot{Size: ptywright.Size{Rows: 8, Cols: 10}, PlainText: "a\nb\nc\nd\ne\nf\ng\nh", Sequence: 7, Title: "tool"}
	intent := "send_prompt"
	cc := ptywright.NewClassifyContext(snap, "tail", 450, &intent)
	require.Equal(t, "a\nb\nc\nd\ne", cc.BodyText)
	require.Equal(t, "f\ng\nh", cc.StatusText)
	require.Equal(t, snap.PlainText, cc.Screen)
	require.Equal(t, uint64(7), cc.Sequence)
	require.Equal(t, "tail", *cc.Transcript)
	require.Equal(t, int64(450), *cc.StableMs)
	require.Equal(t, int64(300), *cc.CompletedTurnStableMs)
	require.Equal(t, "send_prompt", *cc.LastIntent)
	require.Equal(t, "tool", *cc.Title)

	snap = ptywright.ScreenSnapshot{Size: ptywright.Size{Rows: 6, Cols: 10}, PlainText: "a\nb"}
	cc = ptywright.NewClassifyContext(snap, "", 0, nil)
	require.Equal(t, "a\nb\n\n\n\n", cc.BodyText, "6 rows or fewer are all body")
	require.Empty(t, cc.StatusText)
	require.Nil(t, cc.Title)
	require.Nil(t, cc.LastIntent)

	// Trailing blank rows still count as rows of the status bar.
	snap = ptywright.ScreenSnapshot{Size: ptywright.Size{Rows: 24, Cols: 10}, PlainText: "top"}
	cc = ptywright.NewClassifyContext(snap, "", 0, nil)
	require.Equal(t, 21, len(strings.Split(cc.BodyText, "\n")))
	require.Equal(t, "\n\n", cc.StatusText)
}
