package ptywright

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestActionInput(t *testing.T) {
	tests := []struct {
		name   string
		action Action
		normal string
		app    string
		ok     bool
	}{
		{"text", Text("help\n"), "help\n", "help\n", true},
		{"empty text", Text(""), "", "", true},
		{"text with unicode", Text("héllo 🙂"), "héllo 🙂", "héllo 🙂", true},
		{"paste verbatim", Paste("multi\nline"), "multi\nline", "multi\nline", true},
		{"bracketed paste", BracketedPaste("wrap me"), "\x1b[200~wrap me\x1b[201~", "\x1b[200~wrap me\x1b[201~", true},
		{"bracketed paste empty", BracketedPaste(""), "\x1b[200~\x1b[201~", "\x1b[200~\x1b[201~", true},
		{"bracketed paste strips embedded end marker", BracketedPaste("a\x1b[201~rm -rf\r"), "\x1b[200~arm -rf\r\x1b[201~", "\x1b[200~arm -rf\r\x1b[201~", true},
		{"key enter", Press(KeyEnter), "\r", "\r", true},
		{"key up follows cursor mode", Press(KeyUp), "\x1b[A", "\x1bOA", true},
		{"key home follows cursor mode", Press(KeyHome), "\x1b[H", "\x1bOH", true},
		{"interrupt", Interrupt(), "\x03", "\x03", true},
		{"eof", EOF(), "\x04", "\x04", true},
		{"resize", Resize(40, 120), "", "", false},
		{"kill", Kill(), "", "", false},
		{"signal", SendSignal(SignalTerm), "", "", false},
		{"mark", MarkTranscript("before"), "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.action.Validate())
			b, ok := tt.action.Input(false)
			require.Equal(t, tt.ok, ok)
			if !ok {
				require.Nil(t, b)
				return
			}
			require.Equal(t, tt.normal, string(b))
			b, ok = tt.action.Input(true)
			require.True(t, ok)
			require.Equal(t, tt.app, string(b))
		})
	}
}

func TestActionConstructors(t *testing.T) {
	require.Equal(t, Action{Type: ActionResize, Size: Size{Rows: 40, Cols: 120}}, Resize(40, 120))
	require.Equal(t, Action{Type: ActionResize, Size: Size{Rows: 40, Cols: 120, PixelWidth: 800, PixelHeight: 600}}, Action{Type: ActionResize, Size: Size{Rows: 40, Cols: 120, PixelWidth: 800, PixelHeight: 600}})
	require.Equal(t, Action{Type: ActionSignal, Signal: SignalHup}, SendSignal(SignalHup))
	require.Equal(t, Action{Type: ActionMarkTranscript, Label: "x"}, MarkTranscript("x"))
	require.Equal(t, Action{Type: ActionKey, Key: KeyTab}, Press(KeyTab))
}

func TestActionValidateRejects(t *testing.T) {
	tests := []struct {
		name    string
		action  Action
		field   string
		also    error
		message string
	}{
		{"missing type", Action{}, "action.type", nil, "action.type: required"},
		{"unknown type", Action{Type: "typo"}, "action.type", nil, `action.type: unknown action type "typo" (valid types: text, paste, bracketed_paste, key, resize, interrupt, eof, kill, signal, mark_transcript)`},
		{"unknown key", Press("Enter"), "action.value", ErrUnknownKey, `unknown key "Enter"`},
		{"empty key", Press(""), "action.value", ErrUnknownKey, `unknown key ""`},
		{"bad size", Resize(0, 80), "action.value.rows", ErrInvalidSize, "action.value.rows: must be between 1 and 10000"},
		{"bad pixels", Action{Type: ActionResize, Size: Size{Rows: 1, Cols: 1, PixelHeight: -1}}, "action.value.pixel_height", ErrInvalidSize, "action.value.pixel_height: must be between 0 and 65535"},
		{"unknown signal", SendSignal("stop"), "action.value", ErrUnknownSignal, `unknown signal "stop" (valid signals: int, term, hup, quit, kill, usr1, usr2)`},
		{"empty label", MarkTranscript(""), "action.value.label", nil, "action.value.label: must not be empty"},
		{"payload in wrong field", Action{Type: ActionKey, Key: KeyEnter, Text: "x"}, "action", nil, `field Text must be empty for type "key"`},
		{"text with key", Action{Type: ActionText, Text: "x", Key: KeyEnter}, "action", nil, `field Key must be empty for type "text"`},
		{"interrupt with text", Action{Type: ActionInterrupt, Text: "x"}, "action", nil, `field Text must be empty for type "interrupt"`},
		{"kill with size", Action{Type: ActionKill, Size: Size{Rows: 1}}, "action", nil, `field Size must be empty for type "kill"`},
		{"signal with label", Action{Type: ActionSignal, Signal: SignalInt, Label: "l"}, "action", nil, `field Label must be empty for type "signal"`},
		{"mark with signal", Action{Type: ActionMarkTranscript, Label: "l", Signal: SignalInt}, "action", nil, `field Signal must be empty for type "mark_transcript"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.action.Validate()
			require.ErrorIs(t, err, ErrInvalidAction)
			if tt.also != nil {
				require.ErrorIs(t, err, tt.also)
			}
			var fe *FieldError
			require.True(t, errors.As(err, &fe))
			require.Equal(t, tt.field, fe.Field)
			require.Contains(t, err.Error(), tt.message)

			_, err = json.Marshal(tt.action)
			require.ErrorIs(t, err, ErrInvalidAction, "an invalid action must not marshal")
		})
	}
}

func TestSignals(t *testing.T) {
	for _, s := range []Signal{SignalInt, SignalTerm, SignalHup, SignalQuit, SignalKill, SignalUsr1, SignalUsr2} {
		got, err := ParseSignal(string(s))
		require.NoError(t, err)
		require.Equal(t, s, got)
	}
	for _, bad := range []string{"", "INT", "sigterm", "SIGTERM", "9", "stop"} {
		_, err := ParseSignal(bad)
		require.ErrorIs(t, err, ErrUnknownSignal, bad)
		require.Contains(t, err.Error(), "int, term, hup, quit, kill, usr1, usr2")
	}
}

// TestActionJSONValid covers every wire form in the JSON-RPC reference and
// the two extensions, decoding and re-encoding each.
func TestActionJSONValid(t *testing.T) {
	tests := []struct {
		name   string
		json   string
		want   Action
		encode string // canonical form MarshalJSON produces; "" means same as json
	}{
		{"text", `{"type":"text","value":"hello"}`, Text("hello"), ""},
		{"text empty", `{"type":"text","value":""}`, Text(""), ""},
		{"text escapes", `{"type":"text","value":"a\nb\u001b"}`, Text("a\nb\x1b"), ""},
		{"paste", `{"type":"paste","value":"multi\nline"}`, Paste("multi\nline"), ""},
		{"bracketed_paste", `{"type":"bracketed_paste","value":"wrap me"}`, BracketedPaste("wrap me"), ""},
		{"key", `{"type":"key","value":"enter"}`, Press(KeyEnter), ""},
		{"key f12", `{"type":"key","value":"f12"}`, Press(F(12)), ""},
		{"resize full", `{"type":"resize","value":{"rows":40,"cols":120,"pixel_width":0,"pixel_height":0}}`, Resize(40, 120), ""},
		{"resize without pixels", `{"type":"resize","value":{"rows":40,"cols":120}}`, Resize(40, 120), `{"type":"resize","value":{"rows":40,"cols":120,"pixel_width":0,"pixel_height":0}}`},
		{"resize pixels", `{"type":"resize","value":{"rows":40,"cols":120,"pixel_width":960,"pixel_height":800}}`, Action{Type: ActionResize, Size: Size{Rows: 40, Cols: 120, PixelWidth: 960, PixelHeight: 800}}, ""},
		{"resize null pixels", `{"type":"resize","value":{"rows":2,"cols":3,"pixel_width":null}}`, Resize(2, 3), `{"type":"resize","value":{"rows":2,"cols":3,"pixel_width":0,"pixel_height":0}}`},
		{"interrupt", `{"type":"interrupt"}`, Interrupt(), ""},
		{"eof", `{"type":"eof"}`, EOF(), ""},
		{"kill", `{"type":"kill"}`, Kill(), ""},
		{"kill null value", `{"type":"kill","value":null}`, Kill(), `{"type":"kill"}`},
		{"signal", `{"type":"signal","value":"term"}`, SendSignal(SignalTerm), ""},
		{"signal usr1", `{"type":"signal","value":"usr1"}`, SendSignal(SignalUsr1), ""},
		{"mark_transcript", `{"type":"mark_transcript","value":{"label":"before prompt"}}`, MarkTranscript("before prompt"), ""},
		{"whitespace and order", " {\n \"value\" : \"x\" ,\t\"type\":\"text\" } ", Text("x"), `{"type":"text","value":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Action
			require.NoError(t, json.Unmarshal([]byte(tt.json), &got))
			require.Equal(t, tt.want, got)

			enc, err := json.Marshal(got)
			require.NoError(t, err)
			want := tt.encode
			if want == "" {
				want = tt.json
			}
			require.JSONEq(t, want, string(enc))

			var again Action
			require.NoError(t, json.Unmarshal(enc, &again))
			require.Equal(t, got, again)
		})
	}
}

func TestActionJSONInsideParams(t *testing.T) {
	var params struct {
		Session string `json:"session"`
		Action  Action `json:"action"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"session":"s1","action":{"type":"text","value":"help\n"}}`), &params))
	require.Equal(t, Text("help\n"), params.Action)

	err := json.Unmarshal([]byte(`{"session":"s1","action":{"type":"key","value":"nope"}}`), &params)
	require.ErrorIs(t, err, ErrInvalidAction)
	require.ErrorIs(t, err, ErrUnknownKey)
}

func TestActionJSONInvalid(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		field   string
		message string
		also    error
	}{
		// Not an object.
		{"null", `null`, "action", "action: must be a JSON object, got null", nil},
		{"string", `"text"`, "action", "must be a JSON object, got a string", nil},
		{"array", `[]`, "action", "must be a JSON object, got an array", nil},
		{"number", `1`, "action", "must be a JSON object, got a number", nil},
		// Top level.
		{"unknown top-level field", `{"type":"text","value":"x","extra":1}`, "action.extra", "action.extra: unknown field (allowed: type, value)", nil},
		{"field name case differs", `{"Type":"text","value":"x"}`, "action.Type", "unknown field", nil},
		{"missing type", `{"value":"x"}`, "action.type", "action.type: required", nil},
		{"null type", `{"type":null}`, "action.type", "action.type: required", nil},
		{"type not a string", `{"type":3}`, "action.type", "action.type: must be a string, got a number", nil},
		{"unknown type", `{"type":"typo","value":"x"}`, "action.type", `action.type: unknown action type "typo"`, nil},
		{"empty type", `{"type":""}`, "action.type", `action.type: unknown action type ""`, nil},
		// String values.
		{"text missing value", `{"type":"text"}`, "action.value", "action.value: required (a string)", nil},
		{"text null value", `{"type":"text","value":null}`, "action.value", "action.value: required", nil},
		{"text number value", `{"type":"text","value":5}`, "action.value", "action.value: must be a string, got a number", nil},
		{"paste object value", `{"type":"paste","value":{}}`, "action.value", "must be a string, got an object", nil},
		{"bracketed_paste array value", `{"type":"bracketed_paste","value":["a"]}`, "action.value", "must be a string, got an array", nil},
		{"key missing value", `{"type":"key"}`, "action.value", "action.value: required", nil},
		{"key bool value", `{"type":"key","value":true}`, "action.value", "must be a string, got a boolean", nil},
		{"unknown key", `{"type":"key","value":"Enter"}`, "action.value", `unknown key "Enter" (valid keys: enter, escape`, ErrUnknownKey},
		{"aliased ctrl key", `{"type":"key","value":"ctrl_m"}`, "action.value", `unknown key "ctrl_m"`, ErrUnknownKey},
		{"signal missing value", `{"type":"signal"}`, "action.value", "action.value: required", nil},
		{"signal number value", `{"type":"signal","value":15}`, "action.value", "must be a string, got a number", nil},
		{"unknown signal", `{"type":"signal","value":"SIGTERM"}`, "action.value", `unknown signal "SIGTERM"`, ErrUnknownSignal},
		// No-value types.
		{"interrupt with value", `{"type":"interrupt","value":"x"}`, "action.value", `action.value: not allowed for type "interrupt"`, nil},
		{"eof with value", `{"type":"eof","value":{}}`, "action.value", `not allowed for type "eof"`, nil},
		{"kill with value", `{"type":"kill","value":9}`, "action.value", `not allowed for type "kill"`, nil},
		// Resize.
		{"resize missing value", `{"type":"resize"}`, "action.value", "action.value: required for type \"resize\"", nil},
		{"resize string value", `{"type":"resize","value":"40x120"}`, "action.value", "action.value: must be a JSON object, got a string", nil},
		{"resize missing rows", `{"type":"resize","value":{"cols":120}}`, "action.value.rows", "action.value.rows: required", nil},
		{"resize missing cols", `{"type":"resize","value":{"rows":40}}`, "action.value.cols", "action.value.cols: required", nil},
		{"resize null rows", `{"type":"resize","value":{"rows":null,"cols":1}}`, "action.value.rows", "action.value.rows: required", nil},
		{"resize zero rows", `{"type":"resize","value":{"rows":0,"cols":120}}`, "action.value.rows", "action.value.rows: must be between 1 and 10000", ErrInvalidSize},
		{"resize huge cols", `{"type":"resize","value":{"rows":40,"cols":10001}}`, "action.value.cols", "action.value.cols: must be between 1 and 10000", ErrInvalidSize},
		{"resize negative pixels", `{"type":"resize","value":{"rows":40,"cols":80,"pixel_width":-1}}`, "action.value.pixel_width", "action.value.pixel_width: must be between 0 and 65535", ErrInvalidSize},
		{"resize fractional rows", `{"type":"resize","value":{"rows":40.5,"cols":120}}`, "action.value.rows", "action.value.rows: must be an integer, got 40.5", nil},
		{"resize exponent rows", `{"type":"resize","value":{"rows":4e1,"cols":120}}`, "action.value.rows", "must be an integer, got 4e1", nil},
		{"resize quoted rows", `{"type":"resize","value":{"rows":"40","cols":120}}`, "action.value.rows", "action.value.rows: must be an integer, got a string", nil},
		{"resize overflowing rows", `{"type":"resize","value":{"rows":99999999999999999999,"cols":120}}`, "action.value.rows", "action.value.rows: out of range", nil},
		{"resize unknown field", `{"type":"resize","value":{"rows":40,"cols":120,"width":3}}`, "action.value.width", "action.value.width: unknown field (allowed: rows, cols, pixel_width, pixel_height)", nil},
		{"resize field case differs", `{"type":"resize","value":{"Rows":40,"cols":120}}`, "action.value.Rows", "unknown field", nil},
		// Mark.
		{"mark missing value", `{"type":"mark_transcript"}`, "action.value", "action.value: required for type \"mark_transcript\"", nil},
		{"mark string value", `{"type":"mark_transcript","value":"x"}`, "action.value", "must be a JSON object, got a string", nil},
		{"mark missing label", `{"type":"mark_transcript","value":{}}`, "action.value.label", "action.value.label: required", nil},
		{"mark number label", `{"type":"mark_transcript","value":{"label":1}}`, "action.value.label", "must be a string, got a number", nil},
		{"mark empty label", `{"type":"mark_transcript","value":{"label":""}}`, "action.value.label", "action.value.label: must not be empty", nil},
		{"mark unknown field", `{"type":"mark_transcript","value":{"label":"a","at":3}}`, "action.value.at", "action.value.at: unknown field (allowed: label)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Text("untouched")
			err := json.Unmarshal([]byte(tt.json), &a)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrInvalidAction)
			if tt.also != nil {
				require.ErrorIs(t, err, tt.also)
			}
			var fe *FieldError
			require.True(t, errors.As(err, &fe), "want *FieldError, got %T: %v", err, err)
			require.Equal(t, tt.field, fe.Field)
			require.Contains(t, err.Error(), tt.message)
			require.True(t, strings.HasPrefix(err.Error(), tt.field+": "), err.Error())
			require.Equal(t, Text("untouched"), a, "a failed decode must leave the action unchanged")
		})
	}
}

func TestActionJSONSyntaxError(t *testing.T) {
	var a Action
	// Malformed JSON never reaches UnmarshalJSON: encoding/json reports it.
	require.Error(t, json.Unmarshal([]byte(`{"type":"text",}`), &a))
	// But a direct call with a broken object is still a field error.
	err := a.UnmarshalJSON([]byte(`{"type":"text"`))
	require.ErrorIs(t, err, ErrInvalidAction)
	require.Contains(t, err.Error(), "action: malformed JSON")
}

// FuzzActionUnmarshal: any input either decodes to a valid action that
// round-trips exactly, or fails with ErrInvalidAction (or a JSON syntax
// error from encoding/json itself), never panics.
func FuzzActionUnmarshal(f *testing.F) {
	for _, seed := range []string{
		`{"type":"text","value":"hello"}`,
		`{"type":"key","value":"enter"}`,
		`{"type":"resize","value":{"rows":40,"cols":120,"pixel_width":0,"pixel_height":0}}`,
		`{"type":"interrupt"}`, `{"type":"kill","value":null}`,
		`{"type":"signal","value":"term"}`,
		`{"type":"mark_transcript","value":{"label":"x"}}`,
		`{"type":"resize","value":{"rows":1e3,"cols":-0}}`,
		`{"type":"text","value":"\ud800"}`,
		`{"type":"key","value":"enter","value":"tab"}`,
		`[]`, `null`, `"x"`, `{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var a Action
		err := json.Unmarshal(data, &a)
		if err != nil {
			var syntaxErr *json.SyntaxError
			if !errors.As(err, &syntaxErr) && json.Valid(data) {
				require.ErrorIs(t, err, ErrInvalidAction)
			}
			return
		}
		require.NoError(t, a.Validate())
		enc, err := json.Marshal(a)
		require.NoError(t, err)
		var again Action
		require.NoError(t, json.Unmarshal(enc, &again))
		require.Equal(t, a, again)
	})
}
