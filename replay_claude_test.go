package ptywright_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/asciicast"
	"ptywright/contract"
	"ptywright/plugins"
)

// TestReplayClaudeTurnThroughThePlugin replays the shipped recording of a
// real Claude Code turn (fake model) through the built-in claude-code
// classifier, without a process.
func TestReplayClaudeTurnThroughThePlugin(t *testing.T) {
	f, err := os.Open(claudeTurnCast)
	require.NoError(t, err)
	defer f.Close()
	rec, err := asciicast.Read(f)
	require.NoError(t, err)

	plugins, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = plugins.Close() })
	ext, err := plugins.NewExtension("claude-code")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ext.Close() })

	changes, err := ptywright.ReplayClassify(context.Background(), rec, ext, ptywright.ReplayOptions{})
	require.NoError(t, err)
	var states []string
	for _, c := range changes {
		if len(states) == 0 || states[len(states)-1] != c.State.State {
			states = append(states, c.State.State)
		}
	}
	t.Logf("states: %v", states)
	require.NotContains(t, states, contract.PluginErrorState)
	require.Equal(t, "completed_turn", states[len(states)-1])
	require.Subset(t, states, []string{"starting", "ready", "thinking", "completed_turn"})
	// In that order.
	want := []string{"starting", "ready", "thinking", "completed_turn"}
	k := 0
	for _, s := range states {
		if k < len(want) && s == want[k] {
			k++
		}
	}
	require.Equal(t, len(want), k, "states %v must pass through %v in order", states, want)
	last := changes[len(changes)-1].State
	require.Equal(t, "Hello from the fake model. This answer was streamed for a ptywright recording.", last.Metadata["turn"].(map[string]any)["text"])
}
