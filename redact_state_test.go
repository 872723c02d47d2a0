package ptywright_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
)

func TestRedactStateReachesEveryQuotedString(t *testing.T) {
	r, err := ptywright.RedactionPolicy{Enabled: true, ExtraLiterals: []string{"hunter2"}}.Compile()
	require.NoError(t, err)
	st := ptywright.StateSnapshot{
		State:    "idle",
		Evidence: "pw hunter2",
		Metadata: map[string]any{
			"options": []any{"a hunter2", map[string]any{"label": "hunter2!"}},
			"count":   3.0,
		},
		Assessment: &contract.SurfaceAssessment{OperatorBlockedExcerpt: "allow hunter2?"},
	}
	got := ptywright.RedactState(st, r)
	require.Equal(t, "pw [REDACTED]", got.Evidence)
	require.Equal(t, map[string]any{
		"options": []any{"a [REDACTED]", map[string]any{"label": "[REDACTED]!"}},
		"count":   3.0,
	}, got.Metadata)
	require.Equal(t, "allow [REDACTED]?", got.Assessment.OperatorBlockedExcerpt)
	// The input is a copy's source, not rewritten in place.
	require.Equal(t, "allow hunter2?", st.Assessment.OperatorBlockedExcerpt)
	require.Equal(t, "a hunter2", st.Metadata["options"].([]any)[0])

	require.Equal(t, st, ptywright.RedactState(st, ptywright.NoRedaction()), "NoRedaction leaves the state raw")
}

func TestRedactOutcomeReachesEveryBranch(t *testing.T) {
	r, err := ptywright.RedactionPolicy{Enabled: true, ExtraLiterals: []string{"hunter2"}}.Compile()
	require.NoError(t, err)
	capture := "x hunter2"
	o := &ptywright.MatchOutcome{Kind: ptywright.MatchAny, Matched: []ptywright.MatchOutcome{
		{Kind: ptywright.MatchScreenRegex, Pattern: "hunter2|y", Capture: &capture},
		{Kind: ptywright.MatchContainsText, Text: "hunter2"},
		{Kind: ptywright.MatchLua, Evidence: map[string]any{"seen": []any{"hunter2"}}},
	}}
	got := ptywright.RedactOutcome(o, r)
	require.Equal(t, "[REDACTED]|y", got.Matched[0].Pattern)
	require.Equal(t, "x [REDACTED]", *got.Matched[0].Capture)
	require.Equal(t, "[REDACTED]", got.Matched[1].Text)
	require.Equal(t, map[string]any{"seen": []any{"[REDACTED]"}}, got.Matched[2].Evidence)
	require.Equal(t, "x hunter2", capture, "the input is not rewritten")
	require.Equal(t, "hunter2", o.Matched[1].Text)
	require.Same(t, o, ptywright.RedactOutcome(o, ptywright.NoRedaction()))
	require.Nil(t, ptywright.RedactOutcome(nil, r))
}
