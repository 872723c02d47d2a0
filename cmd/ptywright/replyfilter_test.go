package main

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// filterAll feeds chunks in order, then flushes, as the forwarder does when
// input stops.
func filterAll(chunks ...[]byte) []byte {
	var f replyFilter
	var out []byte
	for _, c := range chunks {
		out = f.filter(out, c)
	}
	return f.flush(out)
}

// Every reply kind the filter drops, as real terminals send them.
var replyCases = []struct {
	name string
	in   string
}{
	{"focus in", "\x1b[I"},
	{"focus out", "\x1b[O"},
	{"primary DA", "\x1b[?62;22c"},
	{"primary DA one param", "\x1b[?6c"},
	{"secondary DA", "\x1b[>1;10;0c"},
	{"cursor position", "\x1b[12;40R"},
	{"cursor position row 1", "\x1b[1;1R"},
	{"extended cursor position", "\x1b[?12;40R"},
	{"extended cursor position with page", "\x1b[?12;40;1R"},
	{"private mode report", "\x1b[?2004;2$y"},
	{"ansi mode report", "\x1b[4;1$y"},
	{"foreground colour BEL", "\x1b]10;rgb:ffff/ffff/ffff\a"},
	{"background colour ST", "\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\"},
	{"cursor colour", "\x1b]12;rgb:00/ff/00\a"},
	{"highlight colour", "\x1b]17;rgb:0/0/0\a"},
	{"rgba colour", "\x1b]11;rgba:0000/0000/0000/ffff\x1b\\"},
	{"palette colour", "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\"},
}

// Input that is not a reply and must pass byte for byte.
var passCases = []struct {
	name string
	in   string
}{
	{"text", "hello, world\r"},
	{"utf-8", "héllo ✓ 日本"},
	{"control bytes", "\x01\x03\x04\x1a\x7f\x00"},
	{"arrow up", "\x1b[A"},
	{"arrow up application mode", "\x1bOA"},
	{"F5", "\x1b[15~"},
	{"shift arrow", "\x1b[1;2A"},
	{"alt-x", "\x1bx"},
	{"alt-[", "\x1b["},
	{"alt-]", "\x1b]"},
	{"escape escape", "\x1b\x1b"},
	{"escape then arrow", "\x1b\x1b[A"},
	{"SGR mouse", "\x1b[<0;3;4M"},
	{"X10 mouse", "\x1b[M !!"},
	{"bracketed paste", "\x1b[200~pasted\x1b[201~"},
	{"DA query shape without marker", "\x1b[c"},
	{"DA without params", "\x1b[?c"},
	{"DA with empty param", "\x1b[?;1c"},
	{"three numbers before R", "\x1b[1;2;3R"},
	{"one number before R", "\x1b[12R"},
	{"DECRQM with one number", "\x1b[?2004$y"},
	{"y without $", "\x1b[?2004;2y"},
	{"focus-like with params", "\x1b[1I"},
	{"title OSC", "\x1b]0;title\a"},
	{"colour query", "\x1b]11;?\a"},
	{"OSC 20", "\x1b]20;rgb:0/0/0\a"},
	{"OSC 4 without index", "\x1b]4;rgb:0/0/0\a"},
	{"OSC typed then Enter", "\x1b]11;rgb\r"},
	{"OSC cut by ESC", "\x1b]11;rgb:0\x1bx"},
	{"OSC cut by a reply", "\x1b]11;rgb:0\x1b[A"},
	{"CSI cut by a control", "\x1b[1\r"},
	{"CSI cut by UTF-8", "\x1b[1é"},
	{"rxvt shift-insert", "\x1b[2$"},
	{"overlong CSI", "\x1b[" + string(bytes.Repeat([]byte("1;"), maxReplyLen)) + "R"},
	{"overlong OSC", "\x1b]11;rgb:" + string(bytes.Repeat([]byte("0"), maxReplyLen)) + "\a"},
	{"lone escape", "\x1b"},
	{"trailing CSI prefix", "ab\x1b[?1;"},
}

func TestReplyFilterDropsReplies(t *testing.T) {
	for _, tc := range replyCases {
		t.Run(tc.name, func(t *testing.T) {
			require.Empty(t, filterAll([]byte(tc.in)))
			// Surrounded by keys, only the reply goes.
			in := "a\x1b[A" + tc.in + "\x1bOBb"
			require.Equal(t, "a\x1b[A\x1bOBb", string(filterAll([]byte(in))))
		})
	}
}

func TestReplyFilterPassesInput(t *testing.T) {
	for _, tc := range passCases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.in, string(filterAll([]byte(tc.in))))
		})
	}
}

// A sequence split anywhere across reads must give the same result as the
// whole sequence: terminals' replies do arrive in pieces.
func TestReplyFilterSplitAtEveryOffset(t *testing.T) {
	type tcase struct{ name, in, want string }
	var cases []tcase
	for _, tc := range replyCases {
		cases = append(cases, tcase{"drop " + tc.name, "x" + tc.in + "y", "xy"})
	}
	for _, tc := range passCases {
		cases = append(cases, tcase{"pass " + tc.name, tc.in, tc.in})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			for i := 0; i <= len(in); i++ {
				require.Equal(t, tc.want, string(filterAll(in[:i], in[i:])), "split at %d", i)
			}
			oneByOne := make([][]byte, len(in))
			for i := range in {
				oneByOne[i] = in[i : i+1]
			}
			require.Equal(t, tc.want, string(filterAll(oneByOne...)), "byte by byte")
		})
	}
}

func TestReplyFilterHoldsUntilDecided(t *testing.T) {
	var f replyFilter
	out := f.filter(nil, []byte("a\x1b"))
	require.Equal(t, "a", string(out))
	require.True(t, f.holding(), "a lone ESC may start a reply")

	// The next byte shows it is a key: released at once, nothing held.
	out = f.filter(nil, []byte("OA"))
	require.Equal(t, "\x1bOA", string(out))
	require.False(t, f.holding())

	// A reply prefix is held; flush gives it back unchanged (a person
	// typing Escape, then '[' and '?' slowly).
	out = f.filter(nil, []byte("\x1b[?6"))
	require.Empty(t, out)
	require.True(t, f.holding())
	require.Equal(t, "\x1b[?6", string(f.flush(nil)))
	require.False(t, f.holding())

	// After a flush the filter starts afresh.
	require.Empty(t, f.filter(nil, []byte("\x1b[I")))
	require.False(t, f.holding())
}

// Random streams of keys, text and replies, cut into random chunks: the
// output is exactly the non-reply parts, in order.
func TestReplyFilterRandomStreams(t *testing.T) {
	var keys []string
	for _, tc := range passCases {
		switch tc.name {
		case "lone escape", "trailing CSI prefix", "alt-[", "alt-]", "escape escape", "rxvt shift-insert":
			// These change meaning when something follows them.
		default:
			keys = append(keys, tc.in)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 2000 {
		var in, want bytes.Buffer
		for range 1 + rng.IntN(12) {
			if rng.IntN(2) == 0 {
				s := replyCases[rng.IntN(len(replyCases))].in
				in.WriteString(s)
			} else {
				s := keys[rng.IntN(len(keys))]
				in.WriteString(s)
				want.WriteString(s)
			}
		}
		var chunks [][]byte
		b := in.Bytes()
		for len(b) > 0 {
			n := 1 + rng.IntN(len(b))
			chunks = append(chunks, b[:n])
			b = b[n:]
		}
		require.Equal(t, want.String(), string(filterAll(chunks...)), "iteration %d, input %q", iter, in.String())
	}
}

// FuzzReplyFilter checks the properties that hold for any input: how the
// input is cut into reads does not matter, input without ESC is untouched,
// and the output is the input with whole sequences removed (never altered).
func FuzzReplyFilter(f *testing.F) {
	for _, tc := range replyCases {
		f.Add([]byte(tc.in), uint8(3))
	}
	for _, tc := range passCases {
		f.Add([]byte(tc.in), uint8(1))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		whole := filterAll(in)
		i := int(cut) % (len(in) + 1)
		require.Equal(t, string(whole), string(filterAll(in[:i], in[i:])))
		if !bytes.Contains(in, []byte{esc}) {
			require.Equal(t, string(in), string(whole))
		}
		require.True(t, isSubsequence(whole, in), "output %q is not taken from input %q", whole, in)
	})
}

func isSubsequence(sub, s []byte) bool {
	for _, b := range sub {
		i := bytes.IndexByte(s, b)
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
	return true
}

func BenchmarkReplyFilter(b *testing.B) {
	// Typing-like input: text with arrow keys, and a reply now and then.
	chunk := []byte("some typed text \x1b[A\x1b[B and more\x1b[?62;22c\r")
	var f replyFilter
	out := make([]byte, 0, len(chunk))
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		out = f.filter(out[:0], chunk)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(chunk)), "ns/byte")
}
