package claudecode_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
)

// The claude-code plugin's side of the shared parsing contract
// (shared-tui-parsing-contracts): parser metadata, anomalies and the
// dialog projection, checked on the recorded Claude Code screens.

// anomalyCodes lists an assessment's anomaly codes (never nil).
func anomalyCodes(a *contract.SurfaceAssessment) []string {
	codes := []string{}
	if a != nil {
		for _, an := range a.Anomalies {
			codes = append(codes, an.Code)
		}
	}
	return codes
}

// projectFixture runs the plugin's project(ctx) on fx, on a fresh instance.
func projectFixture(t *testing.T, fx claudeFixture) string {
	t.Helper()
	ext, ok := newClaudeExtension(t).(ptywright.Projector)
	require.True(t, ok, "the claude-code extension is a Projector")
	dialog, id, ok, err := ext.Project(context.Background(), classifyContext(fx.Screen, nil, 5000))
	require.NoError(t, err)
	require.True(t, ok, "claude-code exports project")
	require.Equal(t, "claude-code.v1", id)
	return dialog
}

// classifyText classifies a screen given as text on ext.
func classifyText(t *testing.T, ext ptywright.Extension, text string) ptywright.StateSnapshot {
	t.Helper()
	st, err := ext.Classify(context.Background(), classifyContext(fixtureSnapshot("screen_24x80", text), nil, 5000))
	require.NoError(t, err)
	require.NotNil(t, st.Assessment)
	require.NoError(t, st.Assessment.Validate())
	return st
}

func fixtureText(t *testing.T, name string) string {
	t.Helper()
	for _, fx := range loadClaudeFixtures(t) {
		if fx.Name == name {
			return fx.Screen.PlainText
		}
	}
	t.Fatalf("no fixture %s", name)
	return ""
}

// TestClaudeCodeParserMetadataContract checks every graded capture: the
// metadata names the preset and the output family, the version is the
// banner's when one is on screen, and the only anomaly on a recognised
// screen of the known version is the version floor, exactly when no banner
// was seen.
func TestClaudeCodeParserMetadataContract(t *testing.T) {
	for _, fx := range loadClaudeFixtures(t) {
		if fx.Expect == nil {
			continue
		}
		t.Run(fx.Name, func(t *testing.T) {
			st := classifyFixture(t, fx)
			pm := st.Assessment.ParserMetadata
			require.NotNil(t, pm)
			require.Equal(t, "claude-code", pm.ProviderID)
			require.Equal(t, "claude-code-tui", pm.ParserPresetID)
			require.Equal(t, "1", pm.ParserPresetVersion)
			require.Equal(t, "claude_code_tui", pm.OutputFormat)
			require.Contains(t, []string{"prompt_box", "no_prompt_box", "blank"}, pm.OutputVariant)
			require.NotNil(t, pm.OutputFormatMatch)
			require.True(t, *pm.OutputFormatMatch, "every graded capture is a recognised screen")
			require.Empty(t, pm.RequestedVersion)
			require.False(t, pm.BaselineInvalidated)
			for _, an := range st.Assessment.Anomalies {
				require.NotEmpty(t, an.Message, "anomaly %s", an.Code)
			}
			if strings.Contains(fx.Screen.PlainText, "Claude Code v2.1.330") {
				require.Equal(t, "2.1.330", pm.DetectedVersion)
				require.Equal(t, "detected", pm.SelectionSource)
				require.Empty(t, anomalyCodes(st.Assessment))
			} else {
				require.Empty(t, pm.DetectedVersion)
				require.Equal(t, "version_floor", pm.SelectionSource)
				require.Equal(t, []string{contract.AnomalyUnknownVersionFloorUsed}, anomalyCodes(st.Assessment))
			}
			if pm.OutputVariant == "prompt_box" {
				require.Contains(t, fx.Screen.PlainText, "❯\u00a0", "the live prompt box's input row")
			}
		})
	}
}

// TestClaudeCodeVersionAnomalies: a newer Claude Code than the preset
// knows, a banner remembered after it scrolled away, and a banner that
// changes within a session.
func TestClaudeCodeVersionAnomalies(t *testing.T) {
	banner := fixtureText(t, "completed_turn_hello_24x80")
	require.Contains(t, banner, "Claude Code v2.1.330")
	noBanner := fixtureText(t, "waiting_for_permission_bash_24x80")
	require.NotContains(t, noBanner, "Claude Code v")

	t.Run("newer version uses the floor", func(t *testing.T) {
		st := classifyText(t, newClaudeExtension(t), strings.Replace(banner, "v2.1.330", "v2.9.1", 1))
		require.Equal(t, "completed_turn", st.State, "the floor preset still reads the screen")
		pm := st.Assessment.ParserMetadata
		require.Equal(t, "2.9.1", pm.DetectedVersion)
		require.Equal(t, "version_floor", pm.SelectionSource)
		require.Equal(t, []string{contract.AnomalyUnknownVersionFloorUsed}, anomalyCodes(st.Assessment))
		require.Contains(t, st.Assessment.Anomalies[0].Message, "2.9.1")
		require.Contains(t, st.Assessment.Anomalies[0].Message, "2.1.330")
	})
	t.Run("banner remembered after it scrolled away", func(t *testing.T) {
		ext := newClaudeExtension(t)
		classifyText(t, ext, banner)
		st := classifyText(t, ext, noBanner)
		require.Equal(t, "waiting_for_permission", st.State)
		pm := st.Assessment.ParserMetadata
		require.Equal(t, "2.1.330", pm.DetectedVersion)
		require.Equal(t, "remembered", pm.SelectionSource)
		require.Empty(t, anomalyCodes(st.Assessment))
	})
	t.Run("a different banner invalidates the baseline", func(t *testing.T) {
		ext := newClaudeExtension(t)
		classifyText(t, ext, banner)
		st := classifyText(t, ext, strings.Replace(banner, "v2.1.330", "v2.9.1", 1))
		pm := st.Assessment.ParserMetadata
		require.True(t, pm.BaselineInvalidated)
		require.ElementsMatch(t, []string{contract.AnomalyBaselineInvalidated, contract.AnomalyUnknownVersionFloorUsed}, anomalyCodes(st.Assessment))
		// The next screen of the same version is a settled baseline again.
		st = classifyText(t, ext, strings.Replace(banner, "v2.1.330", "v2.9.1", 1))
		require.False(t, st.Assessment.ParserMetadata.BaselineInvalidated)
		require.Equal(t, []string{contract.AnomalyUnknownVersionFloorUsed}, anomalyCodes(st.Assessment))
	})
}

// TestClaudeCodeUnmatchedAndFallback: a screen that matched no state, and
// states reached by a catch-all rule, say so in anomalies.
func TestClaudeCodeUnmatchedAndFallback(t *testing.T) {
	t.Run("screen matching no state", func(t *testing.T) {
		st := classifyText(t, newClaudeExtension(t), "Segmentation fault (core dumped)\n$ ")
		require.Equal(t, "starting", st.State)
		a := st.Assessment
		require.Equal(t, contract.AvailabilityUnknown, a.Availability)
		require.NotNil(t, a.ParserMetadata.OutputFormatMatch)
		require.False(t, *a.ParserMetadata.OutputFormatMatch)
		require.ElementsMatch(t, []string{"unrecognized_screen", contract.AnomalyUnknownVersionFloorUsed}, anomalyCodes(a))
	})
	t.Run("transcript without box or dialog", func(t *testing.T) {
		st := classifyText(t, newClaudeExtension(t), "❯ hello\n\n● Working on it, line one.\n")
		require.Equal(t, "thinking", st.State)
		require.True(t, *st.Assessment.ParserMetadata.OutputFormatMatch)
		require.ElementsMatch(t, []string{"state_fallback", contract.AnomalyUnknownVersionFloorUsed}, anomalyCodes(st.Assessment))
	})
	t.Run("unknown numbered menu", func(t *testing.T) {
		st := classifyText(t, newClaudeExtension(t), "❯ hello\n\n● Pick one.\n\n Something new here\n ❯ 1. First\n   2. Second\n")
		require.Equal(t, "waiting_for_user_input", st.State)
		require.ElementsMatch(t, []string{"state_fallback", contract.AnomalyUnknownVersionFloorUsed}, anomalyCodes(st.Assessment))
		for _, an := range st.Assessment.Anomalies {
			if an.Code == "state_fallback" {
				require.Contains(t, an.Message, "waiting_for_user_input")
			}
		}
	})
}

// TestClaudeCodeProjectionAll projects every capture: the logo header, the
// live prompt box and its status row never reach the dialog text, and blank
// runs are collapsed.
func TestClaudeCodeProjectionAll(t *testing.T) {
	for _, fx := range loadClaudeFixtures(t) {
		t.Run(fx.Name, func(t *testing.T) {
			dialog := projectFixture(t, fx)
			require.NotContains(t, dialog, "▐▛███▛█", "logo header")
			require.NotContains(t, dialog, "▝▜██████▀", "logo header")
			require.NotContains(t, dialog, "❯\u00a0", "live prompt box")
			for _, l := range strings.Split(dialog, "\n") {
				require.False(t, strings.HasPrefix(l, "  ⏸ ") || strings.HasPrefix(l, "  ⏵⏵ "), "status row %q", l)
			}
			require.NotContains(t, dialog, "\n\n\n", "blank runs are collapsed")
			require.Equal(t, strings.TrimRight(strings.TrimLeft(dialog, "\n"), " \n"), dialog, "no blank rows around the dialog")
		})
	}
}

// TestClaudeCodeProjectionExtraction: a sentinel-delimited answer is
// extracted from the projection as clients do it through Extract.
func TestClaudeCodeProjectionExtraction(t *testing.T) {
	text := fixtureText(t, "completed_turn_hello_24x80")
	text = strings.Replace(text, "Hello! I am the fake model. How can I help?", "<<<A>>>42<<<E>>>", 1)
	ext := newClaudeExtension(t).(ptywright.Projector)
	dialog, _, _, err := ext.Project(context.Background(), classifyContext(fixtureSnapshot("x_24x80", text), nil, 5000))
	require.NoError(t, err)
	got, err := ptywright.Extraction{Sentinels: []string{"<<<A>>>", "<<<E>>>"}}.Extract(dialog)
	require.NoError(t, err)
	require.Equal(t, "42", got.Text)
}

// TestClaudeCodeParserOverride: the parser_override intent pins the
// version selection, every assessment says so, and clearing it follows
// the banner again. It sends no keys; a malformed version is refused.
func TestClaudeCodeParserOverride(t *testing.T) {
	ext := newClaudeExtension(t)
	ctx := context.Background()
	banner := fixtureText(t, "completed_turn_hello_24x80")

	plan, err := ext.Plan(ctx, "parser_override", json.RawMessage(`{"version":"2.1.330"}`))
	require.NoError(t, err)
	require.Empty(t, plan.Actions, "the override sends no keys")
	st := classifyText(t, ext, fixtureText(t, "waiting_for_permission_bash_24x80"))
	pm := st.Assessment.ParserMetadata
	require.Equal(t, "2.1.330", pm.RequestedVersion)
	require.Equal(t, "override", pm.SelectionSource)
	require.Empty(t, pm.DetectedVersion, "no banner seen")
	require.Equal(t, []string{contract.AnomalyPresetOverrideUsed}, anomalyCodes(st.Assessment), "a known version: no floor")
	require.Contains(t, st.Assessment.Anomalies[0].Message, "none seen")

	// An override to a version the preset does not know still falls to
	// the floor; the banner's version is still reported as detected.
	_, err = ext.Plan(ctx, "parser_override", json.RawMessage(`{"version":"3.0.0"}`))
	require.NoError(t, err)
	st = classifyText(t, ext, banner)
	require.Equal(t, "completed_turn", st.State)
	pm = st.Assessment.ParserMetadata
	require.Equal(t, "3.0.0", pm.RequestedVersion)
	require.Equal(t, "2.1.330", pm.DetectedVersion)
	require.ElementsMatch(t, []string{contract.AnomalyPresetOverrideUsed, contract.AnomalyUnknownVersionFloorUsed}, anomalyCodes(st.Assessment))

	_, err = ext.Plan(ctx, "parser_override", json.RawMessage(`{}`))
	require.NoError(t, err)
	st = classifyText(t, ext, banner)
	require.Empty(t, st.Assessment.ParserMetadata.RequestedVersion)
	require.Equal(t, "detected", st.Assessment.ParserMetadata.SelectionSource)
	require.Empty(t, anomalyCodes(st.Assessment))

	for _, bad := range []string{`{"version":"latest"}`, `{"version":7}`} {
		_, err = ext.Plan(ctx, "parser_override", json.RawMessage(bad))
		require.ErrorContains(t, err, "params.version must be a Claude Code version", bad)
	}
}
