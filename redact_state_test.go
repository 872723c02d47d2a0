package ptywright_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
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
		Assessment: &ptywright.SurfaceAssessment{OperatorBlockedExcerpt: "allow hunter2?"},
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

	require.Equal(t, st, ptywright.RedactState(st, nil), "a nil redactor leaves the state raw")
}
