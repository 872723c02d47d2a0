package ptywright

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkMatchTextExcludingEcho is the cost of one look of a wait that
// leaves an echo out (ExcludeEcho) against one that does not, on a 24x80
// shell screen whose last command scrolled its echo up a row.
func BenchmarkMatchTextExcludingEcho(b *testing.B) {
	sc, err := NewScreen(Size{Rows: 24, Cols: 80})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 30 {
		fmt.Fprintf(sc, "$ echo MARK%03d\r\nMARK%03d\r\n", i, i)
	}
	fmt.Fprint(sc, "$ ")
	_, e := sc.echoAt()
	e.Text = "echo MARK030"
	fmt.Fprint(sc, "echo MARK030\r\nMARK030\r\n$ ")
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if spans := sc.findEchoLocked(&e); len(spans) != 1 || spans[0].row != 21 {
		b.Fatalf("echo found at %+v, want row 21", spans)
	}
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			sc.matchValid = false
			_ = sc.matchTextLocked()
		}
	})
	b.Run("excluding-echo", func(b *testing.B) {
		for b.Loop() {
			sc.matchValid = false
			_ = sc.matchTextExcludingLocked(&e)
		}
	})
}

// The echo's cells are blanked in the text screen matchers search, wide
// characters (one cell pair, one character of text) and a row the typed
// text wrapped onto included; the program's output and the next prompt
// stay.
func TestMatchTextExcludingEcho(t *testing.T) {
	for _, tc := range []struct {
		name, prompt, typed, output, want string
	}{
		{"wide", "日本$ ", "echo 中文 hi", "中文 hi\r\n", "\n中文 hi\n日本$ "},
		{"wrapped", "$ ", "echo " + strings.Repeat("x", 30), strings.Repeat("x", 30) + "\r\n",
			"\n\n" + strings.Repeat("x", 20) + "\n" + strings.Repeat("x", 10) + "\n$ "},
		{"wrapped wide", "$ ", "echo " + strings.Repeat("字", 10), strings.Repeat("字", 10) + "\r\n",
			"\n\n" + strings.Repeat("字", 10) + "\n$ "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := NewScreen(Size{Rows: 6, Cols: 20})
			require.NoError(t, err)
			fmt.Fprint(sc, tc.prompt)
			_, e := sc.echoAt()
			e.Text = tc.typed
			fmt.Fprint(sc, tc.typed+"\r\n"+tc.output+tc.prompt)
			sc.mu.Lock()
			defer sc.mu.Unlock()
			require.Equal(t, tc.want, sc.matchTextExcludingLocked(&e), "screen:\n%s", sc.matchTextLocked())
		})
	}
}
