package ptywright_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/manifest"
)

// newerPluginLua classifies every screen as ready with an assessment that
// carries fields a newer plugin might add: at the top level, in
// parser_metadata and in an anomaly.
const newerPluginLua = `
local M = {}
function M.classify(ctx)
  return { state = "ready", confidence = 1, evidence = "newer plugin",
    assessment = { availability = "supported", business_state = "idle", input_mode = "freeform",
      ui_context = "normal_prompt", dialog_kind = "prompt", evidence_rows = { 1, 2 },
      parser_metadata = { provider_id = "repl", detected_version = "1.2", parser_confidence = 0.9 },
      anomalies = { { code = "something_new", message = "m", severity = "low" } } } }
end
function M.project(ctx)
  return { dialog_text = "the dialog", projector_id = "repl.v2", kind = "prompt" }
end
function M.wait_turn_matcher(p)
  return ptywright.matcher.contains_text("READY>")
end
return M
`

func newLuaTestExtension(t *testing.T, src string) *luahost.Extension {
	t.Helper()
	m := manifest.Manifest{Name: "repl", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua,
		Entrypoint: "main.lua", Permissions: manifest.AllPermissions()}
	ext, err := luahost.New(m, []byte(src), luahost.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ext.Close() })
	return ext
}

// TestAssessmentUnknownFieldsAreNotFatal: an assessment with fields this
// host does not know keeps its state; the fields are dropped and named in
// an anomaly. Through a real handle, too: the state is not plugin_error.
func TestAssessmentUnknownFieldsAreNotFatal(t *testing.T) {
	ext := newLuaTestExtension(t, newerPluginLua)
	st, err := ext.Classify(context.Background(), ptywright.ClassifyContext{Screen: "READY>"})
	require.NoError(t, err)
	require.Equal(t, "ready", st.State)
	a := st.Assessment
	require.NotNil(t, a)
	require.NoError(t, a.Validate())
	require.Equal(t, contract.BusinessIdle, a.BusinessState)
	require.Equal(t, "1.2", a.ParserMetadata.DetectedVersion)
	require.Len(t, a.Anomalies, 2)
	require.Equal(t, "something_new", a.Anomalies[0].Code)
	require.Equal(t, contract.AnomalyUnknownAssessmentFields, a.Anomalies[1].Code)
	require.Equal(t, "fields this host does not know were dropped: dialog_kind, evidence_rows, parser_metadata.parser_confidence, anomalies[0].severity",
		a.Anomalies[1].Message)

	dialog, id, ok, err := ext.Project(context.Background(), ptywright.ClassifyContext{Screen: "READY>"})
	require.NoError(t, err, "an extra projection field is dropped, not fatal")
	require.True(t, ok)
	require.Equal(t, "the dialog", dialog)
	require.Equal(t, "repl.v2", id)

	t.Run("through a handle", func(t *testing.T) {
		tuitest.NoLeak(t)
		h := startLifecycleAdapter(t, newerPluginLua, ptywright.HandleOptions{})
		st, err := h.State(context.Background())
		require.NoError(t, err)
		require.Equal(t, "ready", st.State, "evidence %q", st.Evidence)
		require.NotNil(t, st.Assessment)
		require.True(t, st.Assessment.SubmitReady())
		p, err := h.Project(context.Background(), 0, 0)
		require.NoError(t, err)
		require.Equal(t, "the dialog", p.DialogText)
	})
}

// TestAssessmentWrongTypeStillFails: a known field of the wrong type is
// not a newer plugin's addition but a broken one.
func TestAssessmentWrongTypeStillFails(t *testing.T) {
	ext := newLuaTestExtension(t, `
local M = {}
function M.classify(ctx)
  return { state = "ready", assessment = { availability = "supported", business_state = "idle",
    input_mode = "freeform", ui_context = "normal_prompt", extra = 1, parser_metadata = { provider_id = 7 } } }
end
return M
`)
	_, err := ext.Classify(context.Background(), ptywright.ClassifyContext{Screen: "x"})
	require.Error(t, err)
	require.Contains(t, err.Error(), "provider_id")
}

// TestAssessmentKnownFieldsOnlyHasNoAnomaly: a plugin reporting only
// known fields gets no host anomaly.
func TestAssessmentKnownFieldsOnlyHasNoAnomaly(t *testing.T) {
	ext := newLuaTestExtension(t, `
local M = {}
function M.classify(ctx)
  return { state = "ready", assessment = { availability = "supported", business_state = "idle",
    input_mode = "freeform", ui_context = "normal_prompt", parser_metadata = { provider_id = "x", output_format_match = true } } }
end
return M
`)
	st, err := ext.Classify(context.Background(), ptywright.ClassifyContext{Screen: "x"})
	require.NoError(t, err)
	require.Empty(t, st.Assessment.Anomalies)
	require.True(t, *st.Assessment.ParserMetadata.OutputFormatMatch)
}
