package ptywright

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHeldRingAllocatesNothing: holding a classification for a later
// explanation is a copy into a fixed array; every classify pays only that.
func TestHeldRingAllocatesNothing(t *testing.T) {
	var r heldRing
	tail := "transcript"
	cc := ClassifyContext{Screen: "screen", Transcript: &tail}
	st := StateSnapshot{State: "ready", Metadata: map[string]any{"k": "v"}}
	allocs := testing.AllocsPerRun(1000, func() {
		cc.Sequence++
		st.Sequence = cc.Sequence
		r.add(cc, st)
	})
	require.Zero(t, allocs)
	require.Equal(t, HeldClassifications, r.n)
	e, ok := r.newest()
	require.True(t, ok)
	require.Equal(t, cc.Sequence, e.st.Sequence)
	old := r.get(0).st.Sequence
	require.Equal(t, cc.Sequence-HeldClassifications+1, old)
	got, err := r.at(old + 2)
	require.NoError(t, err)
	require.Equal(t, old+2, got.st.Sequence)
	_, err = r.at(old - 1)
	require.ErrorIs(t, err, ErrNotHeld)
}

// BenchmarkHeldRingAdd is what holding costs per classification.
func BenchmarkHeldRingAdd(b *testing.B) {
	var r heldRing
	cc := ClassifyContext{Screen: "screen"}
	st := StateSnapshot{State: "ready"}
	b.ReportAllocs()
	for b.Loop() {
		cc.Sequence++
		r.add(cc, st)
	}
}
