package codex_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
)

// The adverse-screen properties, over every graded fixture: a screen part
// no rule knows never reads as ready or submit-ready, and a dialog's text
// quoted inside an answer never reads as a dialog.

// codexGraded loads every graded fixture: name, text and expectation.
func codexGraded(t *testing.T) map[string]codexFixtureCase {
	t.Helper()
	texts, err := filepath.Glob(filepath.Join(codexFixtureDir, "*.txt"))
	require.NoError(t, err)
	out := map[string]codexFixtureCase{}
	for _, path := range texts {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		if _, err := os.Stat(filepath.Join(codexFixtureDir, name+".expected.json")); err != nil {
			continue
		}
		text, err := os.ReadFile(path)
		require.NoError(t, err)
		out[name] = codexFixtureCase{text: strings.TrimSuffix(string(text), "\n"), cols: codexFixtureCols(t, name)}
	}
	require.NotEmpty(t, out)
	return out
}

type codexFixtureCase struct {
	text string
	cols int
}

// codexClassifyText classifies text on ext. One instance serves a whole
// test (starting one per screen costs more than the test's checks): the
// only thing it carries from one screen to the next is the version a
// banner showed, which these properties do not look at.
func codexClassifyText(t *testing.T, ext ptywright.Extension, text string, cols int) ptywright.StateSnapshot {
	t.Helper()
	st, err := ext.Classify(context.Background(), codexFixtureContext(text, cols, codexExpected{}))
	require.NoError(t, err)
	require.NotNil(t, st.Assessment)
	require.NoError(t, st.Assessment.Validate())
	return st
}

var codexComposerRow = regexp.MustCompile(`^› (?:[^0-9]|$)|^›$`)

// composerRow is the index of the last composer line ("› " not followed by
// a digit), or -1.
func composerRow(lines []string) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if codexComposerRow.MatchString(lines[i]) {
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

// TestCodexUnknownIsNotReady: in every fixture the plugin reads as
// submit-ready, a footer row replaced by text no rule knows, or a line
// put in the blank row above the composer, makes the reading not ready,
// not submit-ready, with an unrecognized_screen anomaly; with a busy sign
// in it, working.
func TestCodexUnknownIsNotReady(t *testing.T) {
	ext := codexExtension(t)
	mutated := 0
	for name, fx := range codexGraded(t) {
		st := codexClassifyText(t, ext, fx.text, fx.cols)
		if !st.Assessment.SubmitReady() {
			continue
		}
		lines := strings.Split(fx.text, "\n")
		c := composerRow(lines)
		require.GreaterOrEqual(t, c, 0, "%s reads submit-ready without a composer", name)
		last := len(lines) - 1
		for last > c && strings.TrimSpace(lines[last]) == "" {
			last--
		}
		type mutation struct {
			what string
			row  int
			text string
			busy bool
		}
		muts := []mutation{
			{"above the composer", c - 1, "  Frobnicating the widget", false},
			{"above the composer, busy", c - 1, "  Warming up the flux capacitor (esc to cancel)", true},
		}
		if last > c {
			muts = append(muts,
				mutation{"footer", last, "  Frobnicating the widget", false},
				mutation{"footer, busy", last, "  Waiting for the flux capacitor · esc cancel", true},
				mutation{"footer, an unknown hint beside known ones", last, "  ← for agents · ? for shortcuts · ctrl+k to frobnicate", false})
		}
		for _, m := range muts {
			if m.row < 0 {
				continue
			}
			mut := append([]string{}, lines...)
			mut[m.row] = m.text
			got := codexClassifyText(t, ext, strings.Join(mut, "\n"), fx.cols)
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
	require.Greater(t, mutated, 40)
}

// TestCodexQuotedDialogIsAnswer: every dialog fixture's text, quoted in an
// answer (as Codex renders a model's text: indented under its "• " line)
// on a completed turn's screen, reads as that completed turn, never as the
// dialog.
func TestCodexQuotedDialogIsAnswer(t *testing.T) {
	ext := codexExtension(t)
	fixtures := codexGraded(t)
	quoted := 0
	for _, host := range []string{"completed_turn_24x80", "completed_turn_40x120"} {
		base := strings.Split(fixtures[host].text, "\n")
		answer := -1
		for i, l := range base {
			if strings.HasPrefix(l, "• Here is the answer") {
				answer = i
			}
		}
		require.GreaterOrEqual(t, answer, 0, host)
		for name, fx := range fixtures {
			st := codexClassifyText(t, ext, fx.text, fx.cols)
			if st.Assessment.BusinessState != contract.BusinessAwaitingOperator {
				continue
			}
			var quote []string
			for _, l := range strings.Split(fx.text, "\n") {
				if strings.TrimSpace(l) != "" {
					quote = append(quote, "  "+strings.TrimRight(l, " "))
				}
			}
			if len(quote) > len(base)-12 {
				quote = quote[len(quote)-(len(base)-12):] // The tail: the options and the key hint.
			}
			screen := append(append(append([]string{}, base[:answer+1]...), quote...), base[answer+1:]...)
			screen = screen[len(screen)-len(base):] // The top scrolls away.
			got := codexClassifyText(t, ext, strings.Join(screen, "\n"), fixtures[host].cols)
			require.NotEqual(t, contract.BusinessAwaitingOperator, got.Assessment.BusinessState,
				"%s quoted in %s reads as a dialog: %s (%s)\n%s", name, host, got.State, got.Evidence, strings.Join(screen, "\n"))
			require.Equal(t, "completed_turn", got.State, "%s quoted in %s: %s", name, host, got.Evidence)
			quoted++
		}
	}
	require.Greater(t, quoted, 20)
}
