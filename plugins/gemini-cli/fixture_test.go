package geminicli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/tuitest"
)

// geminiFixtureDir holds the real Gemini CLI captures (see CAPTURES.md there).
const geminiFixtureDir = "../../testdata/fixtures/gemini_cli"

// geminiExpected is NAME.expected.json: what the capture NAME.txt shows.
type geminiExpected struct {
	State string `json:"state"`
	// Rule is the id of the plugin's rule that fires (its explanation).
	Rule string `json:"rule"`
	// Evidence must be a substring of the classifier's evidence.
	Evidence      string  `json:"evidence"`
	MinConfidence float64 `json:"min_confidence"`
	// Given* feed the classify context: the remembered intent, the
	// terminal title at capture time, how long the screen had been still.
	GivenLastIntent *string `json:"given_last_intent"`
	GivenTitle      *string `json:"given_title"`
	StableMs        *int64  `json:"stable_ms"`
	// Metadata is a subset of the classifier's metadata: every key given
	// must be there with an equal value (objects recursively, arrays
	// element by element with the same length).
	Metadata   map[string]any           `json:"metadata"`
	Assessment geminiExpectedAssessment `json:"assessment"`
}

type geminiExpectedAssessment struct {
	Availability  contract.Availability  `json:"availability"`
	BusinessState contract.BusinessState `json:"business_state"`
	InputMode     contract.InputMode     `json:"input_mode"`
	UIContext     contract.UIContext     `json:"ui_context"`
	// OperatorBlockedExcerpt must be a substring of the excerpt.
	OperatorBlockedExcerpt string `json:"operator_blocked_excerpt"`
	// ParserMetadata is a subset of parser_metadata; a detected_version
	// given must match, and none given means none reported.
	ParserMetadata map[string]any `json:"parser_metadata"`
	// AnomalyCodes are exactly the anomaly codes reported, in any order.
	AnomalyCodes []string `json:"anomaly_codes"`
}

// geminiFixtureContext builds the ClassifyContext ExtensionHandle would
// build for a screen showing text at cols columns (NewClassifyContext): the
// plain text without trailing blank rows, the fixture's title, stable_ms
// (1000 unless the fixture says) and last intent.
func geminiFixtureContext(text string, cols int, exp geminiExpected) ptywright.ClassifyContext {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	plain := strings.TrimRight(strings.Join(lines, "\n"), "\n")
	// The captures are of a running CLI, which has bracketed paste on.
	snap := ptywright.ScreenSnapshot{PlainText: plain, Size: ptywright.Size{Rows: len(lines), Cols: cols}, Sequence: 1, BracketedPaste: true}
	if exp.GivenTitle != nil {
		snap.Title = *exp.GivenTitle
	}
	stable := int64(1000)
	if exp.StableMs != nil {
		stable = *exp.StableMs
	}
	return ptywright.NewClassifyContext(snap, "", stable, exp.GivenLastIntent)
}

var geminiSizeSuffix = regexp.MustCompile(`_(\d+)x(\d+)$`)

// geminiFixtureCols reads the width from a NAME_ROWSxCOLS fixture name.
func geminiFixtureCols(tb testing.TB, name string) int {
	tb.Helper()
	m := geminiSizeSuffix.FindStringSubmatch(name)
	require.NotNil(tb, m, "fixture %s: name must end in _ROWSxCOLS", name)
	cols, err := strconv.Atoi(m[2])
	require.NoError(tb, err)
	return cols
}

// geminiExtension starts a fresh instance of the built-in gemini plugin.
func geminiExtension(tb testing.TB) ptywright.Extension {
	tb.Helper()
	ext, err := tuitest.SharedPlugins(tb).NewExtension("gemini-cli")
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = ext.Close() })
	return ext
}

// geminiSubset reports where got differs from the subset want, or "".
func geminiSubset(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %#v", path, got)
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("%s.%s: missing", path, k)
			}
			if d := geminiSubset(path+"."+k, wv, gv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: want %d items, got %#v", path, len(w), got)
		}
		for i := range w {
			if d := geminiSubset(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); d != "" {
				return d
			}
		}
		return ""
	default:
		if fmt.Sprint(want) != fmt.Sprint(got) {
			return fmt.Sprintf("%s: want %#v, got %#v", path, want, got)
		}
		return ""
	}
}

// geminiJSONValue round-trips v through JSON so numbers and nested maps
// compare the same way on both sides.
func geminiJSONValue(tb testing.TB, v any) any {
	tb.Helper()
	raw, err := json.Marshal(v)
	require.NoError(tb, err)
	var out any
	require.NoError(tb, json.Unmarshal(raw, &out))
	return out
}

// geminiCheck asserts a classification against its expectation.
func geminiCheck(t *testing.T, name string, st ptywright.StateSnapshot, exp geminiExpected) {
	t.Helper()
	require.Equal(t, exp.State, st.State, "%s: evidence %q", name, st.Evidence)
	require.Contains(t, st.Evidence, exp.Evidence)
	require.GreaterOrEqual(t, st.Confidence, exp.MinConfidence)
	if exp.Metadata != nil {
		d := geminiSubset("metadata", geminiJSONValue(t, exp.Metadata), geminiJSONValue(t, st.Metadata))
		require.Empty(t, d, "metadata: %s", geminiJSONValue(t, st.Metadata))
	}

	a := st.Assessment
	require.NotNil(t, a, "no assessment")
	require.NoError(t, a.Validate())
	want := exp.Assessment
	require.Equal(t, want.Availability, a.Availability, "availability")
	require.Equal(t, want.BusinessState, a.BusinessState, "business_state")
	require.Equal(t, want.InputMode, a.InputMode, "input_mode")
	require.Equal(t, want.UIContext, a.UIContext, "ui_context")
	// An excerpt exactly when the tool waits for the operator.
	if a.BusinessState == contract.BusinessAwaitingOperator {
		require.NotEmpty(t, a.OperatorBlockedExcerpt, "operator_blocked_excerpt")
	} else {
		require.Empty(t, a.OperatorBlockedExcerpt, "operator_blocked_excerpt")
	}
	require.Contains(t, a.OperatorBlockedExcerpt, want.OperatorBlockedExcerpt)
	require.NotNil(t, a.ParserMetadata, "parser_metadata")
	require.Equal(t, "gemini-cli-tui", a.ParserMetadata.ParserPresetID)
	require.NotEmpty(t, a.ParserMetadata.ParserPresetVersion)
	d := geminiSubset("parser_metadata", geminiJSONValue(t, want.ParserMetadata), geminiJSONValue(t, a.ParserMetadata))
	require.Empty(t, d)
	if _, ok := want.ParserMetadata["detected_version"]; !ok {
		require.Empty(t, a.ParserMetadata.DetectedVersion, "detected_version: the screen shows no banner")
	}
	codes := []string{}
	for _, an := range a.Anomalies {
		require.NotEmpty(t, an.Message, "anomaly %s has no message", an.Code)
		codes = append(codes, an.Code)
	}
	slices.Sort(codes)
	wantCodes := append([]string{}, want.AnomalyCodes...)
	slices.Sort(wantCodes)
	require.Equal(t, wantCodes, codes, "anomaly codes")
}

// TestGeminiFixtures classifies every capture of the real Gemini CLI that has
// an expected.json; a capture without one is listed, not failed. Each
// fixture gets a fresh plugin instance, so nothing (such as the version a
// banner showed earlier) carries over from another screen.
func TestGeminiFixtures(t *testing.T) {
	texts, err := filepath.Glob(filepath.Join(geminiFixtureDir, "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, texts)
	graded := 0
	for _, path := range texts {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		raw, err := os.ReadFile(filepath.Join(geminiFixtureDir, name+".expected.json"))
		if os.IsNotExist(err) {
			t.Logf("fixture %s: no %s.expected.json, not graded", name, name)
			continue
		}
		require.NoError(t, err)
		graded++
		t.Run(name, func(t *testing.T) {
			var exp geminiExpected
			dec := json.NewDecoder(strings.NewReader(string(raw)))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(&exp), "%s.expected.json", name)
			text, err := os.ReadFile(path)
			require.NoError(t, err)
			ext := geminiExtension(t)
			st, x, err := ext.(ptywright.Explainer).ClassifyExplained(context.Background(), geminiFixtureContext(string(text), geminiFixtureCols(t, name), exp))
			require.NoError(t, err)
			geminiCheck(t, name, st, exp)
			require.NotEmpty(t, exp.Rule, "%s.expected.json names no rule", name)
			require.Equal(t, exp.Rule, x.Rule, "the rule that fires")
			for _, c := range x.Considered {
				require.NotEqual(t, x.Rule, c.Rule, "the rule that fired is not among those rejected")
				require.NotEmpty(t, c.Reason)
			}
		})
	}
	require.Positive(t, graded)
}
