package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/asciicast"
	"ptywright/luahost"
	"ptywright/manifest"
	"ptywright/plugins"
)

func TestCodeMapsRootSentinels(t *testing.T) {
	tests := []struct {
		err  error
		code int64
	}{
		{ptywright.ErrTimeout, CodeTimeout},
		{ptywright.ErrCancelled, CodeCancelled},
		{ptywright.ErrSessionClosed, CodeSessionClosed},
		{ptywright.ErrPermissionDenied, CodePermissionDenied},
		{ptywright.ErrInvalidMatcher, CodeInvalidParams},
		{ptywright.ErrInvalidAction, CodeInvalidParams},
		{ptywright.ErrInvalidSize, CodeInvalidParams},
		{ptywright.ErrInvalidRedaction, CodeInvalidParams},
		{ptywright.ErrUnknownKey, CodeInvalidParams},
		{ptywright.ErrUnknownSignal, CodeInvalidParams},
		{ptywright.ErrInvalidMarker, CodeInvalidParams},
		{ptywright.ErrFileExists, CodeInvalidParams},
		{ptywright.ErrInvalidParams, CodeInvalidParams},
		{manifest.ErrInvalid, CodeInvalidParams},
		{manifest.ErrPathEscape, CodeInvalidParams},
		{plugins.ErrNotFound, CodeInvalidParams},
		{plugins.ErrExists, CodeInvalidParams},
		{plugins.ErrBuiltin, CodeInvalidParams},
		{ptywright.ErrIntentRefused, CodeIntentRefused},
		{ptywright.ErrDialogMismatch, CodeDialogMismatch},
		{&ptywright.DialogMismatchError{Reason: "r"}, CodeDialogMismatch},
		{asciicast.ErrInvalid, CodeInvalidParams},
		{ptywright.ErrProcessExited, CodeSessionClosed},
		{&manifest.Error{Field: "name", Reason: "name is required"}, CodeInvalidParams},
		{&asciicast.Error{}, CodeInvalidParams},
		{&luahost.Error{Plugin: "echo", Function: "send_text", Message: "boom", Err: luahost.ErrRuntime}, CodeInternalError},
		{&luahost.Error{Plugin: "echo", Function: "classify", Message: "slow", Err: luahost.ErrBudget}, CodeInternalError},
		{&luahost.Error{Plugin: "echo", Function: "x", Message: "no", Err: errors.Join(luahost.ErrRuntime, ptywright.ErrPermissionDenied)}, CodePermissionDenied},
		{context.DeadlineExceeded, CodeTimeout},
		{context.Canceled, CodeCancelled},
		{ErrInvalidParams, CodeInvalidParams},
		{ErrMethodNotFound, CodeMethodNotFound},
		{errors.New("disk on fire"), CodeInternalError},
		// Wrapped, through %w and through *WaitError and *FieldError.
		{fmt.Errorf("ctx: %w", ptywright.ErrSessionClosed), CodeSessionClosed},
		{&ptywright.WaitError{Err: ptywright.ErrTimeout}, CodeTimeout},
		{&ptywright.FieldError{Field: "rows", Err: ptywright.ErrInvalidSize}, CodeInvalidParams},
		// An explicit class wins over the sentinel it wraps.
		{fmt.Errorf("%w: %w", ErrInvalidParams, ptywright.ErrTimeout), CodeInvalidParams},
		{PermissionDenied("adapter.send", "input.write"), CodePermissionDenied},
		{pluginLoadDenied("plugin.load"), CodePermissionDenied},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			require.Equal(t, tt.code, codeOf(tt.err))
			require.Equal(t, tt.code, toWire(tt.err).Code)
		})
	}
}

func TestErrorsMatchByCode(t *testing.T) {
	err := fmt.Errorf("%w: session: required", ErrInvalidParams)
	require.ErrorIs(t, err, ErrInvalidParams)
	require.ErrorIs(t, err, &Error{Code: CodeInvalidParams, Message: "other text"})
	require.NotErrorIs(t, err, ErrInternal)
}

func TestToWire(t *testing.T) {
	t.Run("message is redacted", func(t *testing.T) {
		w := toWire(fmt.Errorf("%w: program: cannot run with API_KEY=sk-abcdefghijklmnopqrstuvwx", ErrInvalidParams))
		require.Equal(t, "invalid params: program: cannot run with API_KEY=[REDACTED]", w.Message)
	})
	t.Run("root errors get the class as prefix", func(t *testing.T) {
		require.Equal(t, "session closed", toWire(ptywright.ErrSessionClosed).Message, "the class says it once")
		require.Equal(t, "session closed: session s1", toWire(fmt.Errorf("session s1: %w", ptywright.ErrSessionClosed)).Message)
		require.Equal(t, "invalid params: ptywright: invalid action", toWire(ptywright.ErrInvalidAction).Message, "a sentinel that says more stays")
		require.Equal(t, "internal error: boom", toWire(errors.New("boom")).Message)
	})
	t.Run("a program that exited says so", func(t *testing.T) {
		w := toWire(fmt.Errorf("text input after the exit: %w", ptywright.ErrProcessExited))
		require.Equal(t, int64(CodeSessionClosed), w.Code)
		require.Equal(t, "the program exited: text input after the exit", w.Message, "one prefix, one statement")
		require.ErrorIs(t, ErrProcessExited, ErrSessionClosed, "same code")
	})
	t.Run("plugin errors keep their message, redacted", func(t *testing.T) {
		pe := &luahost.Error{Plugin: "echo", Function: "send_text", Message: "main.lua:3: token sk-abcdefghijklmnopqrstuvwx", Err: luahost.ErrRuntime}
		w := toWire(fmt.Errorf("intent %q: %w", "send_text", pe))
		require.Equal(t, `internal error: intent "send_text": plugin echo: send_text: main.lua:3: token [REDACTED]`, w.Message)
	})
	t.Run("permission data", func(t *testing.T) {
		w := toWire(PermissionDenied("adapter.send", "input.write"))
		require.JSONEq(t, `{"method":"adapter.send","required_permission":"input.write"}`, string(w.Data))
		w = toWire(pluginLoadDenied("plugin.load"))
		require.JSONEq(t, `{"method":"plugin.load","reason":"server_did_not_grant_plugin_load"}`, string(w.Data))
	})
	t.Run("wait evidence", func(t *testing.T) {
		we := &ptywright.WaitError{
			Err:            ptywright.ErrTimeout,
			Elapsed:        1500 * time.Millisecond,
			Sequence:       7,
			Snapshot:       ptywright.ScreenSnapshot{Size: ptywright.Size{Rows: 24, Cols: 80}, Sequence: 7, PlainText: "last"},
			TranscriptTail: "tail",
		}
		w := toWire(fmt.Errorf("wrapped: %w", we))
		require.Equal(t, int64(CodeTimeout), w.Code)
		var data struct {
			Snapshot       map[string]any `json:"snapshot"`
			TranscriptTail string         `json:"transcript_tail"`
			ElapsedMs      int64          `json:"elapsed_ms"`
			Sequence       uint64         `json:"sequence"`
		}
		require.NoError(t, json.Unmarshal(w.Data, &data))
		require.Equal(t, "last", data.Snapshot["plain_text"])
		require.Equal(t, "tail", data.TranscriptTail)
		require.Equal(t, int64(1500), data.ElapsedMs)
		require.Equal(t, uint64(7), data.Sequence)
	})
	t.Run("dialog mismatch data", func(t *testing.T) {
		dm := &ptywright.DialogMismatchError{Reason: `the dialog on screen is "d2", not "d1"`, State: "waiting_for_permission",
			Dialog: &ptywright.Dialog{Kind: "permission", ID: "d2", Tool: "shell", Command: "rm x", Options: []ptywright.DialogOption{{Index: 1, Label: "Yes"}}, SelectedIndex: 1}}
		w := toWire(fmt.Errorf("plugin codex: intent %q: %w", "approve", dm))
		require.Equal(t, int64(CodeDialogMismatch), w.Code)
		require.Equal(t, `dialog mismatch: plugin codex: intent "approve": ptywright: dialog mismatch: the dialog on screen is "d2", not "d1"; nothing was written`, w.Message)
		require.JSONEq(t, `{"reason":"the dialog on screen is \"d2\", not \"d1\"","state":"waiting_for_permission",
			"dialog":{"kind":"permission","id":"d2","tool":"shell","command":"rm x","options":[{"index":1,"label":"Yes"}],"selected_index":1}}`, string(w.Data))
	})
	t.Run("no data otherwise", func(t *testing.T) {
		require.Nil(t, toWire(ErrInvalidParams).Data)
		require.NoError(t, withData(nil, 1))
	})
}

// TestToWireCarriesTheGoText: a bad-input error reaches the wire as its
// class's message followed by the Go error's text, unaltered.
func TestToWireCarriesTheGoText(t *testing.T) {
	_, err := ptywright.ParseKey("Enter")
	require.ErrorContains(t, err, "ptywright: unknown key")
	msg := toWire(err).Message
	require.True(t, strings.HasPrefix(msg, `invalid params: ptywright: unknown key "Enter" (valid keys: enter,`), msg)
	for _, sentinel := range []error{ptywright.ErrInvalidAction, ptywright.ErrUnknownSignal, ptywright.ErrInvalidEngine,
		ptywright.ErrUnknownKey, ptywright.ErrInvalidMatcher, ptywright.ErrFileExists,
		ptywright.ErrInvalidRedaction, ptywright.ErrInvalidSize, asciicast.ErrInvalid, ptywright.ErrInvalidMarker} {
		require.Equal(t, "invalid params: "+sentinel.Error(), toWire(sentinel).Message)
	}
}
