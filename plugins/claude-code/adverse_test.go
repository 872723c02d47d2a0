package claudecode_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/contract"
)

// The adverse-screen properties, over every graded fixture: a status row
// no rule knows never reads as ready or submit-ready, and a dialog's text
// quoted inside an answer never reads as a dialog.

// TestClaudeCodeUnknownStatusIsNotReady: in every fixture that reads as
// submit-ready, the status row under the prompt box replaced by text no
// rule knows (alone, or as one more segment beside known ones), or such a
// line in the row above the box, makes the reading not submit-ready, with
// an unrecognized_screen anomaly; with a busy sign in it, working.
func TestClaudeCodeUnknownStatusIsNotReady(t *testing.T) {
	ext := newClaudeExtension(t)
	mutated := 0
	for _, fx := range loadClaudeFixtures(t) {
		if fx.Expect == nil {
			continue
		}
		st := classifyText(t, ext, fx.Screen.PlainText)
		if !st.Assessment.SubmitReady() {
			continue
		}
		lines := strings.Split(fx.Screen.PlainText, "\n")
		bottom := -1
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.HasPrefix(lines[i], "──────────") {
				bottom = i
				break
			}
		}
		require.GreaterOrEqual(t, bottom, 0, "%s reads submit-ready without a prompt box", fx.Name)
		row := bottom + 1
		for row < len(lines) && strings.TrimSpace(lines[row]) == "" {
			row++
		}
		status := ""
		if row < len(lines) {
			status = lines[row]
		} else {
			lines = append(lines, "")
			row = bottom + 1
		}
		top := bottom - 1
		for top >= 0 && !strings.HasPrefix(lines[top], "──────────") {
			top--
		}
		require.GreaterOrEqual(t, top, 1, "%s: no top rule above the prompt", fx.Name)
		for _, m := range []struct {
			what, text string
			busy       bool
			at         int
		}{
			{"alone", "  Frobnicating the widget", false, row},
			{"busy", "  Waiting for the flux capacitor · esc to cancel", true, row},
			{"beside known segments", strings.TrimRight(status, " ") + " · frobnicator armed", false, row},
			{"above the box", "Frobnicating the widget", false, top - 1},
			{"above the box, right-aligned", strings.Repeat(" ", 40) + "frobnicator armed", false, top - 1},
			{"above the box, busy", "Retrying the flux capacitor", true, top - 1},
		} {
			if m.what == "beside known segments" && (status == "" || strings.Contains(status, "for shell mode")) {
				continue // No status row, or the shortcuts grid, which is known as a block.
			}
			mut := append([]string{}, lines...)
			mut[m.at] = m.text
			got := classifyText(t, ext, strings.Join(mut, "\n"))
			a := got.Assessment
			require.False(t, a.SubmitReady(), "%s, %s: submit-ready on an unknown status row: %s (%s)", fx.Name, m.what, got.State, got.Evidence)
			require.Contains(t, anomalyCodes(a), contract.AnomalyUnrecognizedScreen, "%s, %s", fx.Name, m.what)
			if m.busy {
				require.Equal(t, contract.BusinessWorking, a.BusinessState, "%s, %s", fx.Name, m.what)
			} else {
				require.Equal(t, contract.BusinessUnknown, a.BusinessState, "%s, %s", fx.Name, m.what)
			}
			mutated++
		}
	}
	require.Greater(t, mutated, 40)
}

// TestClaudeCodeQuotedDialogIsAnswer: every dialog fixture's text, quoted
// in an answer (indented under its "● " line, as Claude Code renders a
// model's text) on a completed turn's screen, reads as that completed
// turn, never as the dialog.
func TestClaudeCodeQuotedDialogIsAnswer(t *testing.T) {
	ext := newClaudeExtension(t)
	base := strings.Split(fixtureText(t, "completed_turn_hello_24x80"), "\n")
	answer := -1
	for i, l := range base {
		if strings.HasPrefix(l, "● Hello!") {
			answer = i
		}
	}
	require.GreaterOrEqual(t, answer, 0)
	quoted := 0
	for _, fx := range loadClaudeFixtures(t) {
		if fx.Expect == nil {
			continue
		}
		st := classifyText(t, ext, fx.Screen.PlainText)
		if st.Assessment.BusinessState != contract.BusinessAwaitingOperator {
			continue
		}
		var quote []string
		for _, l := range strings.Split(fx.Screen.PlainText, "\n") {
			if strings.TrimSpace(l) != "" {
				quote = append(quote, "  "+strings.TrimRight(l, " "))
			}
		}
		if len(quote) > 12 {
			quote = quote[len(quote)-12:]
		}
		screen := append(append(append([]string{}, base[:answer+1]...), quote...), base[answer+1:]...)
		screen = screen[len(screen)-len(base):]
		got := classifyText(t, ext, strings.Join(screen, "\n"))
		require.NotEqual(t, contract.BusinessAwaitingOperator, got.Assessment.BusinessState,
			"%s quoted in an answer reads as a dialog: %s (%s)\n%s", fx.Name, got.State, got.Evidence, strings.Join(screen, "\n"))
		require.Equal(t, "completed_turn", got.State, "%s quoted: %s", fx.Name, got.Evidence)
		quoted++
	}
	require.Greater(t, quoted, 20)
}
