package vtcore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOSCTitleWithUTF8ContinuationByte9C(t *testing.T) {
	// ✳ is E2 9C B3: the 0x9C inside it must not end the string.
	const stream = "ab\x1b]0;✳ Claude Code\x07cd"
	whole := New(3, 20, nil)
	whole.WriteString(stream)
	require.Equal(t, "✳ Claude Code", whole.Title())
	require.Equal(t, "abcd", strings.TrimRight(string(whole.AppendRowText(nil, 0)), " "))

	// The same stream split at every byte, ESC at the end of a write
	// included.
	for cut := 1; cut < len(stream); cut++ {
		term := New(3, 20, nil)
		term.WriteString(stream[:cut])
		term.WriteString(stream[cut:])
		require.Equal(t, "✳ Claude Code", term.Title(), "cut at %d", cut)
		require.Equal(t, "abcd", strings.TrimRight(string(term.AppendRowText(nil, 0)), " "), "cut at %d", cut)
	}
}

func TestOSCTerminators(t *testing.T) {
	for name, tc := range map[string]struct{ in, title, text string }{
		"BEL":           {"\x1b]2;one\x07x", "one", "x"},
		"ESC backslash": {"\x1b]2;two\x1b\\x", "two", "x"},
		"8-bit ST":      {"\x1b]2;three\x9cx", "three", "x"},
		"CAN cancels":   {"\x1b]2;four\x18x", "", "x"},
		"ESC then CSI":  {"\x1b]2;five\x1b[1mx", "five", "x"},
	} {
		term := New(3, 20, nil)
		term.WriteString(tc.in)
		require.Equal(t, tc.title, term.Title(), name)
		require.Equal(t, tc.text, strings.TrimRight(string(term.AppendRowText(nil, 0)), " "), name)
	}
}
