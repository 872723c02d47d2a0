package ptywright

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/contract"
)

func TestRedactStateReachesEveryQuotedString(t *testing.T) {
	r, err := RedactionPolicy{Enabled: true, ExtraLiterals: []string{"hunter2"}}.Compile()
	require.NoError(t, err)
	st := StateSnapshot{
		State:    "idle",
		Evidence: "pw hunter2",
		Metadata: map[string]any{
			"options": []any{"a hunter2", map[string]any{"label": "hunter2!"}},
			"count":   3.0,
		},
		Assessment: &contract.SurfaceAssessment{OperatorBlockedExcerpt: "allow hunter2?"},
	}
	got := st.redacted(r, 0)
	require.Equal(t, "pw [REDACTED]", got.Evidence)
	require.Equal(t, map[string]any{
		"options": []any{"a [REDACTED]", map[string]any{"label": "[REDACTED]!"}},
		"count":   3.0,
	}, got.Metadata)
	require.Equal(t, "allow [REDACTED]?", got.Assessment.OperatorBlockedExcerpt)
	// The input is a copy's source, not rewritten in place.
	require.Equal(t, "allow hunter2?", st.Assessment.OperatorBlockedExcerpt)
	require.Equal(t, "a hunter2", st.Metadata["options"].([]any)[0])

	require.Equal(t, st, st.redacted(NoRedaction(), 0), "NoRedaction leaves the state raw")
}

func TestRedactOutcomeReachesEveryBranch(t *testing.T) {
	r, err := RedactionPolicy{Enabled: true, ExtraLiterals: []string{"hunter2"}}.Compile()
	require.NoError(t, err)
	capture := "x hunter2"
	o := &MatchOutcome{Kind: MatchAny, Matched: []MatchOutcome{
		{Kind: MatchScreenRegex, Pattern: "hunter2|y", Capture: &capture},
		{Kind: MatchContainsText, Text: "hunter2"},
		{Kind: MatchLua, Evidence: map[string]any{"seen": []any{"hunter2"}}},
	}}
	got := o.redacted(r)
	require.Equal(t, "[REDACTED]|y", got.Matched[0].Pattern)
	require.Equal(t, "x [REDACTED]", *got.Matched[0].Capture)
	require.Equal(t, "[REDACTED]", got.Matched[1].Text)
	require.Equal(t, map[string]any{"seen": []any{"[REDACTED]"}}, got.Matched[2].Evidence)
	require.Equal(t, "x hunter2", capture, "the input is not rewritten")
	require.Equal(t, "hunter2", o.Matched[1].Text)
	require.Same(t, o, o.redacted(NoRedaction()))
	require.Nil(t, (*MatchOutcome)(nil).redacted(r))
}
