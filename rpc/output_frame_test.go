package rpc

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/workload"
)

// TestAppendOutputNotificationMatchesMarshal: the hand-built session.output
// frame is byte for byte what encoding/json (marshal) makes of the same
// params, for text with every kind of byte JSON treats specially: quotes,
// backslashes, each control byte, ESC sequences, invalid and truncated
// UTF-8, U+2028/U+2029 (and runes sharing their bytes), '<' '>' '&' (not
// HTML-escaped), wide runes, at every alignment of the eight-byte scan.
func TestAppendOutputNotificationMatchesMarshal(t *testing.T) {
	pieces := []string{
		"plain text ", `"quoted"`, `back\slash`, "\x1b[1;31mred\x1b[0m", "\r\n", "\t", "\b\f\v\x00\x01\x1f\x7f",
		"<a href=\"x\">&amp;</a>", "\u2028", "\u2029", "\u2068\u2069\u00a8\u00a9\u2018", "héllo wörld ─│┌ 日本語 🙂",
		"\xff", "\xe2\x80", "\xe2\x80\xa8"[:2], "\xc3", "\xed\xa0\x80", "\x80\xa8",
	}
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	cases := []outputParams{
		{Session: "s1", Sequence: 0, Output: ""},
		{Session: "s-\"odd\"\n", Sequence: 1<<64 - 1, Output: string(all), Dropped: true},
		{Session: "s2", Sequence: 3, Output: strings.Repeat("\u2028x\u2029", 9)},
		// Text that grows six times over, and twice over as \ufffd: the
		// output buffer must grow again and again.
		{Session: "s3", Sequence: 4, Output: strings.Repeat("\x00\x1b", 5000)},
		{Session: "s4", Sequence: 5, Output: strings.Repeat("\xff", 5000) + strings.Repeat("─", 3000) + strings.Repeat("\xe2\x94", 999)},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var text []byte
		for range rng.IntN(20) {
			text = append(text, pieces[rng.IntN(len(pieces))]...)
		}
		if rng.IntN(4) == 0 {
			for range rng.IntN(4) {
				text = append(text, byte(rng.IntN(256)))
			}
		}
		cases = append(cases, outputParams{Session: "s7", Sequence: rng.Uint64N(1 << 40), Output: string(text), Dropped: rng.IntN(2) == 0})
	}
	for _, p := range cases {
		want, err := encodeNotification(notifyOutput, p)
		require.NoError(t, err)
		require.Equal(t, string(want), string(appendOutputNotification(nil, p)), "output %q", p.Output)
		require.Equal(t, "x"+string(want), string(appendOutputNotification([]byte("x"), p)), "appends to dst")
	}
}

// TestSpecialBytesFindsFirst: the lowest byte specialBytes flags is the
// first special one of the word, for words of every mix of special and
// ordinary bytes (the borrows between bytes may flag others above it).
func TestSpecialBytesFindsFirst(t *testing.T) {
	special := func(c byte) bool { return c < 0x20 || c == '"' || c == '\\' || c >= 0x80 }
	edges := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', '#', '[', '\\', ']', 'a', 0x7e, 0x7f, 0x80, 0xa8, 0xe2, 0xff}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		var w uint64
		first := 8
		for k := range 8 {
			c := byte(rng.IntN(256))
			if rng.IntN(2) == 0 {
				c = edges[rng.IntN(len(edges))]
			}
			w |= uint64(c) << (8 * k)
			if first == 8 && special(c) {
				first = k
			}
		}
		m := specialBytes(w)
		require.Equal(t, first == 8, m == 0, "%016x", w)
		if m != 0 {
			require.Equal(t, first, bits.TrailingZeros64(m)/8, "%016x", w)
		}
	}
}

// FuzzAppendOutputNotification: for any text and session id, valid UTF-8
// or not, the hand-built frame is what encoding/json makes of it.
func FuzzAppendOutputNotification(f *testing.F) {
	f.Add("s1", "plain text\r\n", uint64(7), false)
	f.Add("s\"2", "\x1b[1;31m\u2028\u2029\xe2\x80\xff\xed\xa0\x80─│\\\"", uint64(1<<63), true)
	f.Add("s3", string(workload.ClaudeRedraws(2048, 24, 80)), uint64(0), false)
	f.Fuzz(func(t *testing.T, session, text string, seq uint64, dropped bool) {
		p := outputParams{Session: session, Sequence: seq, Output: text, Dropped: dropped}
		want, err := encodeNotification(notifyOutput, p)
		require.NoError(t, err)
		require.Equal(t, string(want), string(appendOutputNotification(nil, p)))
		// With room to spare the escaping must not write past its end.
		dst := make([]byte, 3, 4096)
		copy(dst, "abc")
		require.Equal(t, "abc"+string(want), string(appendOutputNotification(dst, p)))
	})
}

// BenchmarkOutputNotification compares encoding a 64 KB session.output
// with encoding/json (marshal, what it was) and by hand, on scrolling text,
// on Claude-like redraws (an escape every few bytes, box drawing) and on a
// full-screen program's output (colours and cursor moves, an escape every
// eight bytes or so).
func BenchmarkOutputNotification(b *testing.B) {
	var plain strings.Builder
	for i := 0; plain.Len() < 64<<10; i++ {
		fmt.Fprintf(&plain, "line %06d the quick brown fox jumps over the lazy dog 0123456789\r\n", i)
	}
	for _, in := range []struct{ name, text string }{
		{"plain", plain.String()},
		{"claude", string(workload.ClaudeRedraws(64<<10, 24, 80))},
		{"mixed", string(workload.MixedRedraws(64<<10, 24))},
	} {
		p := outputParams{Session: "s1", Sequence: 12345, Output: in.text}
		b.Run(in.name+"/marshal", func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				_, _ = encodeNotification(notifyOutput, p)
			}
		})
		b.Run(in.name+"/append", func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				_ = appendOutputNotification(nil, p)
			}
		})
	}
}

// TestAppendChangedNotificationMatchesMarshal: the hand-built
// session.changed frame is byte for byte what encoding/json (marshal) makes
// of the same params, for session ids with bytes JSON escapes, and it
// appends to what dst holds.
func TestAppendChangedNotificationMatchesMarshal(t *testing.T) {
	ids := []string{"s1", "", "s-\"odd\"\n\\", "\x00\x1f\x7f<&>", "\u2028\u2029", "\xff\xe2\x80", "日本語"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		id := make([]byte, rng.IntN(12))
		for i := range id {
			id[i] = byte(rng.IntN(256))
		}
		ids = append(ids, string(id))
	}
	for i, id := range ids {
		for _, seq := range []uint64{0, 1, uint64(i) * 977, 1<<64 - 1} {
			p := changedParams{Session: id, Sequence: seq}
			want, err := encodeNotification(notifyChanged, p)
			require.NoError(t, err)
			require.Equal(t, string(want), string(appendChangedNotification(nil, p)), "session %q", id)
			require.Equal(t, "x"+string(want), string(appendChangedNotification([]byte("x"), p)), "appends to dst")
		}
	}
}
