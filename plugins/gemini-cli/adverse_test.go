package geminicli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
)

// The adverse-screen properties, over every graded fixture: a screen part
// no rule knows never reads as ready or submit-ready, and a dialog's text
// quoted inside an answer never reads as a dialog.

type geminiFixtureCase struct {
	text string
	cols int
}

// geminiGraded loads every graded fixture: name, text and width.
func geminiGraded(t *testing.T) map[string]geminiFixtureCase {
	t.Helper()
	texts, err := filepath.Glob(filepath.Join(geminiFixtureDir, "*.txt"))
	require.NoError(t, err)
	out := map[string]geminiFixtureCase{}
	for _, path := range texts {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		if _, err := os.Stat(filepath.Join(geminiFixtureDir, name+".expected.json")); err != nil {
			continue
		}
		text, err := os.ReadFile(path)
		require.NoError(t, err)
		out[name] = geminiFixtureCase{text: strings.TrimSuffix(string(text), "\n"), cols: geminiFixtureCols(t, name)}
	}
	require.NotEmpty(t, out)
	return out
}

// geminiClassifyText classifies text on ext. One instance serves a whole
// test: the only thing it carries from one screen to the next is the
// version a banner showed, which these properties do not look at.
func geminiClassifyText(t *testing.T, ext ptywright.Extension, text string, cols int) ptywright.StateSnapshot {
	t.Helper()
	st, err := ext.Classify(context.Background(), geminiFixtureContext(text, cols, geminiExpected{}))
	require.NoError(t, err)
	require.NotNil(t, st.Assessment)
	require.NoError(t, st.Assessment.Validate())
	return st
}

// ruleRow is the index of the last full-width rule (the one above the
// composer), or -1.
func ruleRow(lines []string) int {
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if len(l) >= 30 && strings.Trim(l, "─") == "" {
			return i
		}
	}
	return -1
}

func hasAnomaly(a *contract.SurfaceAssessment, code string) bool {
	for _, an := range a.Anomalies {
		if an.Code == code {
			return true
		}
	}
	return false
}

// TestGeminiUnknownIsNotReady: in every fixture the plugin reads as
// submit-ready, the status row above the rule, the mode row under it or a
// footer row replaced by text no rule knows makes the reading not ready,
// not submit-ready, with an unrecognized_screen anomaly and a lowered
// confidence; with a busy sign in it, working.
func TestGeminiUnknownIsNotReady(t *testing.T) {
	ext := geminiExtension(t)
	mutated := 0
	for name, fx := range geminiGraded(t) {
		st := geminiClassifyText(t, ext, fx.text, fx.cols)
		if !st.Assessment.SubmitReady() {
			continue
		}
		lines := strings.Split(fx.text, "\n")
		r := ruleRow(lines)
		require.Greater(t, r, 0, "%s reads submit-ready without the composer's rule", name)
		last := len(lines) - 1
		for last > r && strings.TrimSpace(lines[last]) == "" {
			last--
		}
		type mutation struct {
			what string
			row  int
			text string
			busy bool
		}
		muts := []mutation{
			{"status row", r - 1, " Frobnicating the widget", false},
			{"status row beside a known hint", r - 1, " Frobnicating the widget                                ? for shortcuts", false},
			{"status row, busy", r - 1, " Warming up the flux capacitor (esc to cancel)", true},
			{"mode row", r + 1, " Shift+Tab to frobnicate", false},
			{"footer", last, " Frobnicating the widget", false},
			{"footer labels, one unknown", last - 1, " workspace (/directory)        sandbox        /frobnicate", false},
			{"footer, busy", last, " Waiting for the flux capacitor · esc cancel", true},
		}
		for _, m := range muts {
			mut := append([]string{}, lines...)
			mut[m.row] = m.text
			got := geminiClassifyText(t, ext, strings.Join(mut, "\n"), fx.cols)
			a := got.Assessment
			require.False(t, a.SubmitReady(), "%s, %s: submit-ready on an unknown row: %s (%s)", name, m.what, got.State, got.Evidence)
			require.NotContains(t, []string{"ready", "completed_turn", "error"}, got.State, "%s, %s", name, m.what)
			require.True(t, hasAnomaly(a, contract.AnomalyUnrecognizedScreen), "%s, %s: no unrecognized_screen anomaly: %+v", name, m.what, a.Anomalies)
			if m.busy {
				require.Equal(t, contract.BusinessWorking, a.BusinessState, "%s, %s", name, m.what)
			} else {
				require.Equal(t, contract.BusinessUnknown, a.BusinessState, "%s, %s", name, m.what)
			}
			require.Less(t, got.Confidence, 0.7, "%s, %s: confidence is lowered", name, m.what)
			mutated++
		}
	}
	require.Greater(t, mutated, 60)
}

// TestGeminiQuotedDialogIsAnswer: every dialog fixture's text, quoted in
// an answer (as the CLI renders a model's text: indented under its "✦ "
// row) on a completed turn's screen, reads as that completed turn, never
// as the dialog.
func TestGeminiQuotedDialogIsAnswer(t *testing.T) {
	ext := geminiExtension(t)
	fixtures := geminiGraded(t)
	quoted := 0
	for _, host := range []string{"completed_turn_24x80", "completed_turn_40x120"} {
		base := strings.Split(fixtures[host].text, "\n")
		answer := -1
		for i, l := range base {
			if strings.HasPrefix(l, "✦ Here is the answer") {
				answer = i
			}
		}
		require.GreaterOrEqual(t, answer, 0, host)
		for name, fx := range fixtures {
			st := geminiClassifyText(t, ext, fx.text, fx.cols)
			if st.Assessment.BusinessState != contract.BusinessAwaitingOperator {
				continue
			}
			var quote []string
			for _, l := range strings.Split(fx.text, "\n") {
				if strings.TrimSpace(l) != "" {
					quote = append(quote, "  "+strings.TrimRight(l, " "))
				}
			}
			if len(quote) > len(base)-14 {
				quote = quote[len(quote)-(len(base)-14):] // The tail: the options and the box's end.
			}
			screen := append(append(append([]string{}, base[:answer+1]...), quote...), base[answer+1:]...)
			screen = screen[len(screen)-len(base):] // The top scrolls away.
			got := geminiClassifyText(t, ext, strings.Join(screen, "\n"), fixtures[host].cols)
			require.NotEqual(t, contract.BusinessAwaitingOperator, got.Assessment.BusinessState,
				"%s quoted in %s reads as a dialog: %s (%s)\n%s", name, host, got.State, got.Evidence, strings.Join(screen, "\n"))
			require.Equal(t, "completed_turn", got.State, "%s quoted in %s: %s", name, host, got.Evidence)
			require.Contains(t, turnText(got), strings.TrimSpace(quote[len(quote)-1]), "%s quoted in %s: the quote is the answer's", name, host)
			quoted++
		}
	}
	require.Greater(t, quoted, 8)
}
