package ptywright_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// liveHeap is the heap in use after two collections (the second empties
// the sync.Pool victim caches), and the goroutine stacks in use.
func liveHeap() uint64 {
	heap, _ := liveMemory()
	return heap
}

// liveMemory is liveHeap and the bytes of goroutine stacks in use.
func liveMemory() (heap, stacks uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, ms.StackInuse
}

// TestScrollbackIsBounded: a Screen keeps its grid and a bounded scrollback
// (defaultScrollback rows, and a cell budget for very wide rows), so a
// flood of long lines keeps memory flat once the scrollback is full. (x/vt's
// default scrollback kept 10000 lines: ~80 bytes per cell, 80 MB here.)
func TestScrollbackIsBounded(t *testing.T) {
	scr, err := ptywright.NewScreen(ptywright.Size{Rows: 1, Cols: 1000})
	require.NoError(t, err)
	defer scr.Close()
	line := []byte(strings.Repeat("y", 999) + "\r\n")
	for range 1000 { // fills the scrollback's cell budget
		_, _ = scr.Write(line)
	}
	before := liveHeap()
	for range 2000 {
		_, _ = scr.Write(line)
	}
	grown := int64(liveHeap()) - int64(before)
	require.Less(t, grown, int64(4<<20), "the scrollback grows past its bound")
	require.Equal(t, "", scr.PlainText(), "the last line feed scrolled the row away")
}
