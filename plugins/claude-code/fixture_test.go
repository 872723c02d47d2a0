package claudecode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/tuitest"
)

// claudeFixtureDir holds screens of the real Claude Code (see CAPTURES.md
// there): NAME.txt is one screen, NAME.expected.json what the claude-code
// classifier must say about it.
const claudeFixtureDir = "../../testdata/fixtures/claude_code"

// claudeExpectation is a NAME.expected.json file.
//
//   - state: the state the classifier must report.
//   - rule: the id of the plugin's rule that fires (its explanation).
//   - evidence: a substring the classifier's evidence must contain.
//   - min_confidence: the confidence must be at least this.
//   - metadata: a subset of the metadata: every key given must be there
//     with a matching value (objects recursively, arrays element by element
//     with the same length, numbers and strings exactly); null means absent.
//   - given_last_intent: the last_intent the host remembers (input).
//   - last_intent: the last_intent the snapshot must carry.
//   - stable_ms: how long the screen has been unchanged (input; default
//     5000, a settled screen).
//   - parser_metadata: a subset of the assessment's parser_metadata, as
//     metadata.
//   - anomaly_codes: exactly the assessment's anomaly codes, in any order.
//   - projection: substrings the plugin's dialog projection must and must
//     not contain.
type claudeExpectation struct {
	State           string                 `json:"state"`
	Rule            string                 `json:"rule"`
	Evidence        string                 `json:"evidence"`
	MinConfidence   float64                `json:"min_confidence"`
	Metadata        map[string]any         `json:"metadata"`
	GivenLastIntent *string                `json:"given_last_intent"`
	LastIntent      *string                `json:"last_intent"`
	StableMs        *int64                 `json:"stable_ms"`
	ParserMetadata  map[string]any         `json:"parser_metadata"`
	AnomalyCodes    []string               `json:"anomaly_codes"`
	Projection      *claudeProjectionCheck `json:"projection"`
}

// claudeProjectionCheck is the projection part of an expectation.
type claudeProjectionCheck struct {
	Contains []string `json:"contains"`
	Excludes []string `json:"excludes"`
}

// claudeFixture is one captured screen.
type claudeFixture struct {
	Name   string
	Screen ptywright.ScreenSnapshot
	Expect *claudeExpectation
}

var fixtureSize = regexp.MustCompile(`_(\d+)x(\d+)$`)

// loadClaudeFixtures reads every NAME.txt and its NAME.expected.json, if
// any. The terminal size is the row count of the file and the columns from
// the name (_24x80) or else the longest row.
func loadClaudeFixtures(tb testing.TB) []claudeFixture {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(claudeFixtureDir, "*.txt"))
	require.NoError(tb, err)
	require.NotEmpty(tb, paths, "no fixtures in %s", claudeFixtureDir)
	slices.Sort(paths)
	var out []claudeFixture
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".txt")
		raw, err := os.ReadFile(p)
		require.NoError(tb, err)
		fx := claudeFixture{Name: name, Screen: fixtureSnapshot(name, string(raw))}
		exp, err := os.ReadFile(filepath.Join(claudeFixtureDir, name+".expected.json"))
		if err == nil {
			var e claudeExpectation
			dec := json.NewDecoder(strings.NewReader(string(exp)))
			dec.DisallowUnknownFields()
			require.NoError(tb, dec.Decode(&e), "%s.expected.json", name)
			require.NotEmpty(tb, e.State, "%s.expected.json: state", name)
			fx.Expect = &e
		} else {
			require.ErrorIs(tb, err, os.ErrNotExist)
		}
		out = append(out, fx)
	}
	return out
}

// fixtureSnapshot builds the snapshot a Session would give for the screen
// in text (rows as tmux printed them, trailing spaces already trimmed).
func fixtureSnapshot(name, text string) ptywright.ScreenSnapshot {
	rows := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	cols := 0
	if m := fixtureSize.FindStringSubmatch(name); m != nil {
		cols, _ = strconv.Atoi(m[2])
	}
	for i, r := range rows {
		rows[i] = strings.TrimRight(r, " ")
		if n := utf8.RuneCountInString(r); n > cols {
			cols = n
		}
	}
	end := len(rows)
	for end > 0 && rows[end-1] == "" {
		end--
	}
	return ptywright.ScreenSnapshot{
		Size:      ptywright.Size{Rows: len(rows), Cols: cols},
		Sequence:  1,
		PlainText: strings.Join(rows[:end], "\n"),
	}
}

// classifyContext builds the context exactly as ExtensionHandle does.
func classifyContext(snap ptywright.ScreenSnapshot, lastIntent *string, stableMs int64) ptywright.ClassifyContext {
	return ptywright.NewClassifyContext(snap, "", stableMs, lastIntent)
}

func newClaudeExtension(tb testing.TB) ptywright.Extension {
	tb.Helper()
	ext, err := tuitest.SharedPlugins(tb).NewExtension("claude-code")
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = ext.Close() })
	return ext
}

// classifyFixture classifies fx on a fresh plugin instance, so what one
// fixture leaves in the plugin's memory (last model, last menu) cannot
// decide another.
func classifyFixture(t *testing.T, fx claudeFixture) ptywright.StateSnapshot {
	t.Helper()
	ext := newClaudeExtension(t)
	stable := int64(5000)
	var given *string
	if fx.Expect != nil {
		if fx.Expect.StableMs != nil {
			stable = *fx.Expect.StableMs
		}
		given = fx.Expect.GivenLastIntent
	}
	st, err := ext.Classify(context.Background(), classifyContext(fx.Screen, given, stable))
	require.NoError(t, err)
	// The handle threads the remembered intent onto the snapshot.
	if st.LastIntent == nil && given != nil {
		v := *given
		st.LastIntent = &v
	}
	return st
}

// explainFixture classifies fx with an explanation, on a fresh instance.
func explainFixture(t *testing.T, fx claudeFixture) contract.Explanation {
	t.Helper()
	ext := newClaudeExtension(t)
	stable := int64(5000)
	var given *string
	if fx.Expect != nil {
		if fx.Expect.StableMs != nil {
			stable = *fx.Expect.StableMs
		}
		given = fx.Expect.GivenLastIntent
	}
	st, x, err := ext.(ptywright.Explainer).ClassifyExplained(context.Background(), classifyContext(fx.Screen, given, stable))
	require.NoError(t, err)
	x.State = st.State
	return x
}

// TestClaudeCodeFixtures enrols every capture under claudeFixtureDir. A
// capture without an .expected.json is reported, not failed, so exploratory
// captures can sit next to graded ones.
func TestClaudeCodeFixtures(t *testing.T) {
	fixtures := loadClaudeFixtures(t)
	graded := 0
	states := map[string]int{}
	for _, fx := range fixtures {
		if fx.Expect == nil {
			t.Logf("warning: %s.txt has no %s.expected.json; not graded", fx.Name, fx.Name)
			continue
		}
		graded++
		states[fx.Expect.State]++
		t.Run(fx.Name, func(t *testing.T) {
			e := fx.Expect
			st := classifyFixture(t, fx)
			dump, _ := json.MarshalIndent(st, "", "  ")
			require.Equal(t, e.State, st.State, "state; classifier said:\n%s", dump)
			require.Contains(t, st.Evidence, e.Evidence, "evidence; classifier said:\n%s", dump)
			require.GreaterOrEqual(t, st.Confidence, e.MinConfidence, "confidence; classifier said:\n%s", dump)
			x := explainFixture(t, fx)
			require.NotEmpty(t, e.Rule, "%s.expected.json names no rule", fx.Name)
			require.Equal(t, e.Rule, x.Rule, "the rule that fires; classifier said:\n%s", dump)
			require.Equal(t, st.State, x.State, "explaining does not change the state")
			for _, c := range x.Considered {
				require.NotEqual(t, x.Rule, c.Rule, "the rule that fired is not among those rejected")
				require.NotEmpty(t, c.Reason)
			}
			if x.Region != nil {
				require.LessOrEqual(t, x.Region.LastRow, fx.Screen.Size.Rows, "the region lies on the screen")
			}
			if e.LastIntent != nil {
				require.NotNil(t, st.LastIntent, "last_intent")
				require.Equal(t, *e.LastIntent, *st.LastIntent, "last_intent")
			}
			if e.Metadata != nil {
				// Round-trip through JSON so numbers and nested values
				// compare in one form.
				raw, err := json.Marshal(st.Metadata)
				require.NoError(t, err)
				var got map[string]any
				require.NoError(t, json.Unmarshal(raw, &got))
				if err := subsetMatch("metadata", e.Metadata, got); err != nil {
					t.Fatalf("%v\nclassifier said:\n%s", err, dump)
				}
			}
			if e.ParserMetadata != nil {
				require.NotNil(t, st.Assessment, "assessment")
				raw, err := json.Marshal(st.Assessment.ParserMetadata)
				require.NoError(t, err)
				var got map[string]any
				require.NoError(t, json.Unmarshal(raw, &got))
				if err := subsetMatch("parser_metadata", e.ParserMetadata, got); err != nil {
					t.Fatalf("%v\nclassifier said:\n%s", err, dump)
				}
			}
			if e.AnomalyCodes != nil {
				require.ElementsMatch(t, e.AnomalyCodes, anomalyCodes(st.Assessment), "anomaly codes; classifier said:\n%s", dump)
			}
			if e.Projection != nil {
				dialog := projectFixture(t, fx)
				for _, s := range e.Projection.Contains {
					require.Contains(t, dialog, s, "projection")
				}
				for _, s := range e.Projection.Excludes {
					require.NotContains(t, dialog, s, "projection")
				}
			}
		})
	}
	require.GreaterOrEqual(t, graded, 40, "graded fixtures")
	for _, s := range claudeCodeStates {
		require.Positive(t, states[s], "no graded fixture shows state %s", s)
	}
}

// claudeCodeStates are the states of the JSON-RPC reference's claude-code
// section and exited; every one needs a fixture.
var claudeCodeStates = []string{
	"starting", "ready", "waiting_for_login", "waiting_for_trust", "waiting_for_model_select",
	"waiting_for_enter_plan_mode", "waiting_for_plan_approval", "waiting_for_permission",
	"waiting_for_external_editor", "usage_screen", "local_ui_screen", "waiting_for_user_input",
	"thinking", "cancelling", "completed_turn", "error", "exited",
}

// subsetMatch checks that want is contained in got (see claudeExpectation).
func subsetMatch(path string, want, got any) error {
	switch w := want.(type) {
	case nil:
		if got != nil {
			return fmt.Errorf("%s: want absent, got %#v", path, got)
		}
		return nil
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %#v", path, got)
		}
		for k, wv := range w {
			if err := subsetMatch(path+"."+k, wv, g[k]); err != nil {
				return err
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array, got %#v", path, got)
		}
		if len(g) != len(w) {
			return fmt.Errorf("%s: want %d elements, got %d: %#v", path, len(w), len(g), got)
		}
		for i := range w {
			if err := subsetMatch(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); err != nil {
				return err
			}
		}
		return nil
	default:
		if !reflect.DeepEqual(want, got) {
			return fmt.Errorf("%s: want %#v, got %#v", path, want, got)
		}
		return nil
	}
}

func TestSubsetMatch(t *testing.T) {
	tests := []struct {
		name      string
		want, got string
		ok        bool
	}{
		{"equal scalars", `{"a":1}`, `{"a":1,"b":2}`, true},
		{"different scalar", `{"a":1}`, `{"a":2}`, false},
		{"missing key", `{"a":1}`, `{"b":1}`, false},
		{"null means absent", `{"a":null}`, `{"b":1}`, true},
		{"null but present", `{"a":null}`, `{"a":1}`, false},
		{"nested subset", `{"a":{"x":"y"}}`, `{"a":{"x":"y","z":1}}`, true},
		{"array element subset", `{"a":[{"x":1},{}]}`, `{"a":[{"x":1,"y":2},{"q":1}]}`, true},
		{"array length differs", `{"a":[{"x":1}]}`, `{"a":[{"x":1},{"x":2}]}`, false},
		{"type differs", `{"a":[1]}`, `{"a":{"0":1}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want, got map[string]any
			require.NoError(t, json.Unmarshal([]byte(tt.want), &want))
			require.NoError(t, json.Unmarshal([]byte(tt.got), &got))
			err := subsetMatch("m", want, got)
			if tt.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
}

// TestClaudeCodePermissionDialogID checks that dialog_id names the dialog,
// not the cursor: moving the cursor or opening "Tab to amend" keeps it, a
// different request changes it.
func TestClaudeCodePermissionDialogID(t *testing.T) {
	byName := map[string]claudeFixture{}
	for _, fx := range loadClaudeFixtures(t) {
		byName[fx.Name] = fx
	}
	id := func(name string) string {
		fx, ok := byName[name]
		require.True(t, ok, "fixture %s", name)
		st := classifyFixture(t, fx)
		require.Equal(t, "waiting_for_permission", st.State, name)
		v, _ := st.Metadata["dialog_id"].(string)
		require.NotEmpty(t, v, "%s: dialog_id", name)
		return v
	}
	require.Equal(t, id("waiting_for_permission_bash_24x80"), id("waiting_for_permission_bash_option2_24x80"))
	require.Equal(t, id("waiting_for_permission_write_24x80"), id("waiting_for_permission_write_amend_24x80"))
	require.NotEqual(t, id("waiting_for_permission_bash_24x80"), id("waiting_for_permission_write_24x80"))
	require.NotEqual(t, id("waiting_for_permission_bash_24x80"), id("waiting_for_permission_bash_dont_ask_again_24x80"))
}

// TestClaudeCodeAssessment checks the provider-agnostic assessment every
// classification carries against the fixture's expected state.
func TestClaudeCodeAssessment(t *testing.T) {
	business := map[string]contract.BusinessState{
		"ready": contract.BusinessIdle, "completed_turn": contract.BusinessIdle,
		"usage_screen": contract.BusinessIdle, "local_ui_screen": contract.BusinessIdle,
		"thinking": contract.BusinessWorking, "cancelling": contract.BusinessWorking,
		"waiting_for_login": contract.BusinessAwaitingOperator, "waiting_for_trust": contract.BusinessAwaitingOperator,
		"waiting_for_model_select": contract.BusinessAwaitingOperator, "waiting_for_enter_plan_mode": contract.BusinessAwaitingOperator,
		"waiting_for_plan_approval": contract.BusinessAwaitingOperator, "waiting_for_permission": contract.BusinessAwaitingOperator,
		"waiting_for_user_input": contract.BusinessAwaitingOperator, "waiting_for_external_editor": contract.BusinessAwaitingOperator,
	}
	for _, fx := range loadClaudeFixtures(t) {
		if fx.Expect == nil {
			continue
		}
		t.Run(fx.Name, func(t *testing.T) {
			st := classifyFixture(t, fx)
			a := st.Assessment
			require.NotNil(t, a)
			require.NoError(t, a.Validate())
			require.NotNil(t, a.ParserMetadata)
			require.Equal(t, "claude-code", a.ParserMetadata.ProviderID)
			if want, ok := business[st.State]; ok {
				require.Equal(t, want, a.BusinessState)
			}
			_, hasInput := st.Metadata["input"]
			switch {
			case st.State == "ready" && !hasInput, st.State == "completed_turn":
				require.True(t, a.SubmitReady(), "a settled prompt takes a new one")
			case st.State == "thinking", strings.HasPrefix(st.State, "waiting_for_"):
				require.False(t, a.SubmitReady())
			}
			if a.BusinessState == contract.BusinessAwaitingOperator && st.State != "waiting_for_external_editor" {
				require.NotEmpty(t, a.OperatorBlockedExcerpt)
			}
			if exited, _ := st.Metadata["exited"].(bool); exited {
				require.Equal(t, contract.AvailabilityDisconnected, a.Availability)
			}
			if strings.Contains(fx.Screen.PlainText, "Claude Code v2.1.330") {
				require.Equal(t, "2.1.330", a.ParserMetadata.DetectedVersion)
			}
		})
	}
}
