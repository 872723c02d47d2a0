package ptywright

import (
	"fmt"
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
		r.add(cc, st, 80)
	})
	require.Zero(t, allocs)
	require.Equal(t, heldClassifications, r.n)
	e, ok := r.newest()
	require.True(t, ok)
	require.Equal(t, cc.Sequence, e.st.Sequence)
	old := r.get(0).st.Sequence
	require.Equal(t, cc.Sequence-heldClassifications+1, old)
	got, err := r.at(old + 2)
	require.NoError(t, err)
	require.Equal(t, old+2, got.st.Sequence)
	_, err = r.at(old - 1)
	require.ErrorIs(t, err, ErrNotHeld)

	// Recorded out of order (two classifiers racing): still by sequence.
	var q heldRing
	for _, seq := range []uint64{5, 9, 7, 9} {
		q.add(ClassifyContext{Sequence: seq}, StateSnapshot{Sequence: seq, Evidence: fmt.Sprint("#", q.n)}, 80)
	}
	got, err = q.at(8)
	require.NoError(t, err)
	require.Equal(t, uint64(7), got.st.Sequence)
	got, err = q.at(9)
	require.NoError(t, err)
	require.Equal(t, "#3", got.st.Evidence, "of two of the same screen, the later")
	_, err = q.at(10)
	var nh *NotHeldError
	require.ErrorAs(t, err, &nh)
	require.Equal(t, NotHeldError{Sequence: 10, Oldest: 5, Newest: 9, Held: 4, Capacity: heldClassifications}, *nh)
}

// BenchmarkHeldRingAdd is what holding costs per classification.
func BenchmarkHeldRingAdd(b *testing.B) {
	var r heldRing
	cc := ClassifyContext{Screen: "screen"}
	st := StateSnapshot{State: "ready"}
	b.ReportAllocs()
	for b.Loop() {
		cc.Sequence++
		r.add(cc, st, 80)
	}
}
