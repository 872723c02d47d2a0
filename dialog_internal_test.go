package ptywright

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckAnswer: an answer goes only to the dialog it was for, choosing
// the option it means; every mismatch is a *DialogMismatchError carrying
// the dialog on screen.
func TestCheckAnswer(t *testing.T) {
	dialog := func(id string, selected int) StateSnapshot {
		return StateSnapshot{State: "waiting_for_permission", Metadata: map[string]any{"dialog": map[string]any{
			"kind": "permission", "id": id, "tool": "shell", "command": "touch a",
			"options": []any{
				map[string]any{"index": 1, "label": "Yes"},
				map[string]any{"index": 2, "label": "Yes, and don’t ask again for: touch a"},
				map[string]any{"index": 3, "label": "No"},
			},
			"selected_index": selected,
		}}}
	}
	idle := StateSnapshot{State: "ready"}
	yes := &DialogAnswer{DialogID: "d1", Index: 1, Label: "Yes"}
	enter := &DialogAnswer{DialogID: "d1", Index: 1, Label: "Yes", Highlighted: 1}
	always := &DialogAnswer{DialogID: "d1", Index: 2, Label: "Yes, and don’t ask again for: touch a"}
	tests := []struct {
		name   string
		answer *DialogAnswer
		params string
		st     StateSnapshot
		want   string // "" passes
	}{
		{"no answer, no dialog_id", nil, `{}`, idle, ""},
		{"the dialog it was planned on", yes, `{}`, dialog("d1", 1), ""},
		{"the caller's dialog", yes, `{"dialog_id":"d1"}`, dialog("d1", 1), ""},
		{"a label that names the option", always, `{"label":"Yes, and don't ask again"}`, dialog("d1", 1), ""},
		{"an index that names the option", always, `{"index":2}`, dialog("d1", 1), ""},
		{"the caller saw another dialog", yes, `{"dialog_id":"d0"}`, dialog("d1", 1), `the dialog on screen is "d1", not "d0"`},
		{"the dialog changed after the plan", yes, `{}`, dialog("d2", 1), `the dialog changed after the plan`},
		{"no dialog any more", yes, `{}`, idle, `no dialog on screen`},
		{"a dialog_id on a plugin without answers", nil, `{"dialog_id":"d0"}`, dialog("d1", 1), `not "d0"`},
		{"a label the keys do not choose", yes, `{"label":"No"}`, dialog("d1", 1), `not one labelled "No"`},
		{"an index the keys do not choose", yes, `{"index":3}`, dialog("d1", 1), `not option 3`},
		{"the highlight moved", enter, `{}`, dialog("d1", 2), `highlight`},
		{"the option's label changed", &DialogAnswer{DialogID: "d1", Index: 3, Label: "No, and tell Claude"}, `{}`, dialog("d1", 1), `is "No" now`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkAnswer(tt.answer, []byte(tt.params), tt.st, func() StateSnapshot { return tt.st })
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrDialogMismatch)
			require.ErrorContains(t, err, tt.want)
			var dm *DialogMismatchError
			require.True(t, errors.As(err, &dm))
			require.Equal(t, tt.st.State, dm.State)
			if _, ok := DialogOf(tt.st); ok {
				require.NotNil(t, dm.Dialog)
				require.Equal(t, "touch a", dm.Dialog.Command)
			} else {
				require.Nil(t, dm.Dialog)
			}
		})
	}
}
