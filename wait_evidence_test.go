//go:build unix

package ptywright_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// A wait's evidence is the screen it matched on, while the program keeps
// redrawing it: the snapshot's sequence is the result's, and the outcome's
// capture is what the snapshot shows at the outcome's row and column. Each
// wait comes after the last result's sequence, so it matches on the next
// redraw, with more on their way.
func TestWaitEvidenceIsTheMatchedScreen(t *testing.T) {
	tuitest.NoLeak(t)
	s := sh(t, `i=0; while [ $i -lt 3000000 ]; do printf '\033[Hcount %d\033[K' $i; i=$((i+1)); done; sleep 30`)
	var last uint64
	for k := range 300 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := s.Wait(ctx, ptywright.ScreenRegex(`count (\d+)`), ptywright.After(last))
		cancel()
		require.NoError(t, err)
		last = res.Sequence
		require.Equal(t, res.Sequence, res.Snapshot.Sequence, "wait %d: the snapshot is of another screen than the one matched", k)
		rows := strings.Split(res.Snapshot.PlainText, "\n")
		require.Equal(t, 0, *res.Outcome.Row)
		require.Equal(t, 0, *res.Outcome.Col)
		require.Equal(t, "count "+*res.Outcome.Capture, rows[0], "wait %d: the snapshot shows another count than the one matched", k)
	}
}
