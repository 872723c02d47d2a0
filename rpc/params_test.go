package rpc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

func TestDecodeParamsErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name   string
		dst    func() any
		params string
		msg    string
	}{
		{"create: params array", func() any { return &createParams{} }, `["/bin/sh"]`, "invalid params: params: must be an object, got an array"},
		{"create: unknown field", func() any { return &createParams{} }, `{"program":"sh","colour":1}`, "invalid params: colour: unknown field (allowed: program, preset, args, cwd, env, rows, cols, pixel_width, pixel_height, scrollback, engine, transcript_max_chars, raw_transcript_path, raw_transcript_append, record_path, record_raw, keep_detached, owner, idle_timeout_ms)"},
		{"create: no case folding", func() any { return &createParams{} }, `{"Program":"sh"}`, "invalid params: Program: unknown field (allowed: program, preset, args, cwd, env, rows, cols, pixel_width, pixel_height, scrollback, engine, transcript_max_chars, raw_transcript_path, raw_transcript_append, record_path, record_raw, keep_detached, owner, idle_timeout_ms)"},
		{"create: rows not an integer", func() any { return &createParams{} }, `{"program":"sh","rows":"24"}`, "invalid params: rows: must be an integer in range, got a string"},
		{"create: rows fractional", func() any { return &createParams{} }, `{"program":"sh","rows":2.5}`, "invalid params: rows: must be an integer in range, got number 2.5"},
		{"create: args not strings", func() any { return &createParams{} }, `{"program":"sh","args":["-c",1]}`, "invalid params: args: must be a string, got number"},
		{"create: env not an object", func() any { return &createParams{} }, `{"program":"sh","env":["A=1"]}`, "invalid params: env: must be an object, got an array"},
		{"create: append not a bool", func() any { return &createParams{} }, `{"program":"sh","raw_transcript_append":"yes"}`, "invalid params: raw_transcript_append: must be a boolean, got a string"},
		{"input: action required", func() any { return &inputParams{} }, `{"session":"s1"}`, "invalid params: action: required"},
		{"input: session not a string", func() any { return &inputParams{} }, `{"session":1,"action":{"type":"eof"}}`, "invalid params: session: must be a string, got number"},
		{"input: unknown action field", func() any { return &inputParams{} }, `{"session":"s1","action":{"type":"text","value":"x","extra":1}}`, "invalid params: action.extra: unknown field (allowed: type, value)"},
		{"input: bad key", func() any { return &inputParams{} }, `{"session":"s1","action":{"type":"key","value":"hyper"}}`, "invalid params: action.value: "},
		{"input: bad resize", func() any { return &inputParams{} }, `{"session":"s1","action":{"type":"resize","value":{"rows":0,"cols":80}}}`, "invalid params: action.value.rows: must be between 1 and 10000, got 0"},
		{"wait: matcher required", func() any { return &waitParams{} }, `{"session":"s1"}`, "invalid params: matcher: required"},
		{"wait: unknown matcher type", func() any { return &waitParams{} }, `{"session":"s1","matcher":{"type":"telepathy"}}`, `invalid params: ptywright: invalid matcher: matcher.type: unknown matcher type "telepathy"`},
		{"wait: bad nested regex", func() any { return &waitParams{} }, `{"session":"s1","matcher":{"type":"any","value":[{"type":"screen_regex","value":"("}]}}`, "invalid params: ptywright: invalid matcher: matcher.value[0].value: invalid regular expression"},
		{"wait: timeout not an integer", func() any { return &waitParams{} }, `{"session":"s1","matcher":{"type":"process_exited"},"timeout_ms":"5"}`, "invalid params: timeout_ms: must be an integer in range, got a string"},
		{"read: redaction unknown field", func() any { return &readParams{} }, `{"session":"s1","redaction":{"enabled":true,"extras":[]}}`, "invalid params: redaction.extras: unknown field (allowed: enabled, replacement, extra_literals, extra_regexes)"},
		{"read: redaction enabled required", func() any { return &readParams{} }, `{"session":"s1","redaction":{"replacement":"#"}}`, "invalid params: redaction.enabled: required"},
		{"read: redaction not an object", func() any { return &readParams{} }, `{"session":"s1","redaction":true}`, "invalid params: redaction: must be an object, got a boolean"},
		{"read: redact not a bool", func() any { return &readParams{} }, `{"session":"s1","redact":"no"}`, "invalid params: redact: must be a boolean, got a string"},
		{"read: literal not a string", func() any { return &readParams{} }, `{"session":"s1","redaction":{"enabled":true,"extra_literals":[1]}}`, "invalid params: redaction.extra_literals: must be a string, got number"},
		{"no params allowed", func() any { return &struct{}{} }, `{"x":1}`, "invalid params: x: unknown field (this method takes no params)"},
		{"start: unknown member of a policy rule", func() any { return &startParams{} }, `{"plugin":"p","policy":{"rules":[{"id":"a","decision":"allow"},{"id":"b","decision":"deny","comand":"rm *"}]}}`,
			"invalid params: policy.rules[1].comand: unknown field (allowed: id, plugin, tool, command, path, url, mcp_server, mcp_tool, decision)"},
		{"start: a policy rule's required member", func() any { return &startParams{} }, `{"plugin":"p","policy":{"rules":[{"decision":"allow"}]}}`, "invalid params: policy.rules[0].id: required"},
		{"start: a policy rule not an object", func() any { return &startParams{} }, `{"plugin":"p","policy":{"rules":["allow"]}}`, "invalid params: policy.rules[0]: must be an object, got a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := decodeParams([]byte(tt.params), tt.dst())
			require.Error(t, err)
			require.ErrorIs(t, err, ErrInvalidParams)
			require.Equal(t, int64(CodeInvalidParams), codeOf(err))
			require.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestDecodeParamsAcceptsTheReferenceForms(t *testing.T) {
	var c createParams
	require.NoError(t, decodeParams([]byte(`{"program":"/bin/sh","args":["-lc","printf ready"],"rows":24,"cols":80,"env":{"A":"1"},"raw_transcript_append":false}`), &c))
	require.Equal(t, createParams{Program: "/bin/sh", Args: []string{"-lc", "printf ready"}, Rows: 24, Cols: 80, Env: map[string]string{"A": "1"}}, c)

	var in inputParams
	require.NoError(t, decodeParams([]byte(`{"session":"s1","action":{"type":"resize","value":{"rows":40,"cols":120,"pixel_width":0,"pixel_height":0}}}`), &in))
	require.Equal(t, ptywright.Resize(40, 120), in.Action)

	var w waitParams
	require.NoError(t, decodeParams([]byte(`{"session":"s1","matcher":{"type":"screen_stable","value":{"min_ms":250}},"timeout_ms":5000}`), &w))
	require.Equal(t, ptywright.ScreenStable(250*time.Millisecond), w.Matcher)
	require.Equal(t, int64(5000), *w.TimeoutMs)

	var r readParams
	require.NoError(t, decodeParams([]byte(`{"session":"s1","redact":true,"redaction":{"enabled":false,"replacement":"#","extra_literals":["hunter2"],"extra_regexes":["x+"]}}`), &r))
	red, err := r.redactor()
	require.NoError(t, err)
	// enabled:false inside the object is overridden: the object adds rules.
	require.Equal(t, "pw=# and #", red.Redact("pw=hunter2 and xxx"))

	r.Redact = new(bool)
	red, err = r.redactor()
	require.NoError(t, err)
	require.Same(t, ptywright.NoRedaction(), red, "redact:false means raw output, explicitly")
	require.Equal(t, "pw=hunter2", red.Redact("pw=hunter2"))

	r.Redaction.ExtraRegexes = []string{"ok", "("}
	_, err = r.redactor()
	require.ErrorIs(t, err, ErrInvalidParams)
	require.Contains(t, err.Error(), "redaction.extra_regexes[1]")
}
