package ptywright_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/asciicast"
	"ptywright/contract"
	"ptywright/internal/tuitest"
	"ptywright/manifest"
)

func castOf(t *testing.T, lines ...string) *asciicast.Recording {
	t.Helper()
	rec, err := asciicast.Read(strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	return rec
}

func TestReplayAppliesOutputAndResizes(t *testing.T) {
	rec := castOf(t,
		`{"version": 2, "width": 20, "height": 5}`,
		`[0.1, "o", "hello \u001b[31mred\u001b[0m\r\n"]`,
		`[0.2, "i", "ignored input"]`,
		`[0.3, "r", "30x6"]`,
		`[0.4, "m", "a marker"]`,
		`[0.5, "o", "wide 中文"]`,
	)
	for _, opts := range []ptywright.ReplayOptions{{}, {Timing: true, Speed: 1000}} {
		screen, err := ptywright.Replay(context.Background(), rec, opts)
		require.NoError(t, err)
		snap := screen.Snapshot(true)
		require.Equal(t, ptywright.Size{Rows: 6, Cols: 30}, snap.Size)
		require.Equal(t, "hello red\nwide 中文", snap.PlainText)
		require.Equal(t, "idx:1", snap.Cells[6].Style.Foreground)
		require.Equal(t, ptywright.Cursor{Row: 1, Col: 9, Visible: true}, snap.Cursor)
	}
}

func TestReplayStopsWhenCancelled(t *testing.T) {
	rec := castOf(t,
		`{"version": 2, "width": 20, "height": 5}`,
		`[0.1, "o", "first"]`,
		`[3600, "o", "an hour later"]`,
	)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ptywright.Replay(ctx, rec, ptywright.ReplayOptions{Timing: true})
	require.ErrorIs(t, err, ptywright.ErrCancelled)

	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = ptywright.ReplayClassify(ctx, rec, &vimModes{}, ptywright.ReplayOptions{Timing: true})
	require.ErrorIs(t, err, ptywright.ErrTimeout)

	// The header's idle_time_limit caps the hour, as in the asciinema player.
	rec.Header.IdleTimeLimit = 0.001
	screen, err := ptywright.Replay(context.Background(), rec, ptywright.ReplayOptions{Timing: true})
	require.NoError(t, err)
	require.Equal(t, "firstan hour later", screen.PlainText())
}

func TestReplayRejectsBadOptions(t *testing.T) {
	rec := castOf(t, `{"version": 2, "width": 20, "height": 5}`)
	_, err := ptywright.Replay(context.Background(), rec, ptywright.ReplayOptions{Speed: -1})
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
	require.ErrorContains(t, err, "speed")
	_, err = ptywright.Replay(context.Background(), nil, ptywright.ReplayOptions{})
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
	_, err = ptywright.ReplayClassify(context.Background(), rec, nil, ptywright.ReplayOptions{})
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
	rec.Events = append(rec.Events, asciicast.Event{Type: asciicast.EventResize, Data: "nonsense"})
	_, err = ptywright.Replay(context.Background(), rec, ptywright.ReplayOptions{})
	require.ErrorIs(t, err, ptywright.ErrInvalidSize)
	require.ErrorContains(t, err, "event 0")
}

func TestReplayRawMatchesTheLiveScreen(t *testing.T) {
	raw := filepath.Join(t.TempDir(), "raw.log")
	s := start(t, ptywright.Options{Program: "vim", Args: []string{"-u", "NONE", "-i", "NONE", "-N", "-n"},
		Dir: t.TempDir(), Env: map[string]string{"HOME": t.TempDir()}, RawTranscriptPath: raw})
	waitFor(t, s, ptywright.ScreenRegex(`(?m)^~`))
	send(t, s, ptywright.Text("ihello raw\x1b"))
	waitFor(t, s, ptywright.All(ptywright.ContainsText("hello raw"), ptywright.ScreenStable(100*time.Millisecond)))
	require.NoError(t, s.Close())
	f, err := os.Open(raw)
	require.NoError(t, err)
	defer f.Close()
	screen, err := ptywright.ReplayRaw(context.Background(), f, ptywright.Size{})
	require.NoError(t, err)
	require.Equal(t, comparable(s.Screen().Snapshot(true)), comparable(screen.Snapshot(true)))
}

// vimModes is a small extension written in Go that tells vim's modes from
// its screen, to prove ReplayClassify on a real recording.
type vimModes struct {
	mu   sync.Mutex
	seen []ptywright.ClassifyContext
	fail bool
}

func (v *vimModes) Manifest() manifest.Manifest {
	return manifest.Manifest{Name: "vim-modes", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
}

func (v *vimModes) Classify(_ context.Context, cc ptywright.ClassifyContext) (ptywright.StateSnapshot, error) {
	v.mu.Lock()
	v.seen = append(v.seen, cc)
	fail := v.fail
	v.mu.Unlock()
	if fail {
		return ptywright.StateSnapshot{}, errors.New("vim-modes exploded")
	}
	lines := strings.Split(cc.Screen, "\n")
	last := lines[len(lines)-1]
	tildes := strings.Count(cc.BodyText, "\n~")
	switch {
	case strings.Contains(cc.StatusText, "-- INSERT --"):
		return ptywright.StateSnapshot{State: "insert", Confidence: 1, Evidence: "-- INSERT --"}, nil
	case tildes > 3 && strings.HasPrefix(last, ":"):
		return ptywright.StateSnapshot{State: "command", Confidence: 1, Evidence: last}, nil
	case tildes > 3:
		return ptywright.StateSnapshot{State: "normal", Confidence: 0.8, Evidence: "~ lines, no mode"}, nil
	case cc.Screen == "":
		return ptywright.StateSnapshot{State: "blank", Confidence: 0.5, Evidence: "blank screen"}, nil
	}
	return ptywright.StateSnapshot{State: "shell", Confidence: 0.5, Evidence: "no vim on screen"}, nil
}

func (v *vimModes) Plan(context.Context, string, json.RawMessage) (ptywright.ActionPlan, error) {
	return ptywright.ActionPlan{}, errors.New("vim-modes only classifies")
}

func (v *vimModes) WaitMatcher(context.Context, string, json.RawMessage) (ptywright.Matcher, error) {
	return ptywright.Matcher{}, errors.New("vim-modes only classifies")
}

func (v *vimModes) Close() error { return nil }

func statesOf(changes []ptywright.StateChange) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.State.State
	}
	return out
}

func TestReplayClassifyVimRecording(t *testing.T) {
	rec := readRecording(t, filepath.Join("testdata", "recordings", "vim.cast"))
	changes, err := ptywright.ReplayClassify(context.Background(), rec, &vimModes{}, ptywright.ReplayOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"blank", "normal", "insert", "normal", "command", "blank"}, statesOf(changes), "%v", tuitest.MustJSON(changes))
	for i, c := range changes {
		if i > 0 {
			require.GreaterOrEqual(t, c.Time, changes[i-1].Time)
			require.Greater(t, c.Event, changes[i-1].Event)
		}
		require.LessOrEqual(t, c.Time, rec.Duration())
	}
	insert := changes[2]
	require.Equal(t, asciicast.EventOutput, rec.Events[insert.Event].Type)
	require.Equal(t, rec.Events[insert.Event].Time, insert.Time, "a state seen right after output carries that event's time")
	require.Equal(t, int64(0), insert.StableMs)
}

// A live ExtensionHandle and ReplayClassify of the session's recording give
// the classifier the same context for the same screen.
func TestReplayClassifySeesWhatALiveHandleSees(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vim.cast")
	s := start(t, ptywright.Options{Program: "vim", Args: []string{"-u", "NONE", "-i", "NONE", "-N", "-n"},
		Dir: t.TempDir(), Env: map[string]string{"HOME": t.TempDir()}, RecordPath: path})
	live := &vimModes{}
	h := ptywright.NewExtensionHandle(s, live, ptywright.HandleOptions{CompletedTurnStableMs: 450})
	waitFor(t, s, ptywright.ScreenRegex(`(?m)^~`))
	send(t, s, ptywright.Text("ilive and replayed"))
	waitFor(t, s, ptywright.All(ptywright.ContainsText("-- INSERT --"), ptywright.ContainsText("replayed")))
	waitFor(t, s, ptywright.ScreenStable(200*time.Millisecond))
	st, err := h.State(context.Background())
	require.NoError(t, err)
	require.Equal(t, "insert", st.State)
	require.NoError(t, s.Mark("classified")) // ends the recording's last quiet period
	require.NoError(t, h.Close())

	// Up to the marker: closing the handle made vim exit after it.
	rec := readRecording(t, path)
	for i, ev := range rec.Events {
		if ev.Type == asciicast.EventMarker {
			rec.Events = rec.Events[:i+1]
			break
		}
	}
	replayed := &vimModes{}
	changes, err := ptywright.ReplayClassify(context.Background(), rec, replayed, ptywright.ReplayOptions{CompletedTurnStableMs: 450})
	require.NoError(t, err)
	require.Equal(t, "insert", changes[len(changes)-1].State.State)

	want := live.seen[len(live.seen)-1]
	got := replayed.seen[len(replayed.seen)-1]
	require.Equal(t, want.Screen, got.Screen)
	require.Equal(t, want.BodyText, got.BodyText)
	require.Equal(t, want.StatusText, got.StatusText)
	require.Equal(t, *want.Transcript, *got.Transcript)
	require.Equal(t, int64(450), *got.CompletedTurnStableMs)
	require.Nil(t, got.LastIntent)
	require.GreaterOrEqual(t, *got.StableMs, int64(150), "the settled screen is classified with the quiet period's length")
}

func TestReplayClassifyReportsPluginErrors(t *testing.T) {
	rec := castOf(t, `{"version": 2, "width": 20, "height": 5}`, `[0.1, "o", "x"]`)
	changes, err := ptywright.ReplayClassify(context.Background(), rec, &vimModes{fail: true}, ptywright.ReplayOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{contract.PluginErrorState}, statesOf(changes))
	require.Contains(t, changes[0].State.Evidence, "vim-modes exploded")
}
