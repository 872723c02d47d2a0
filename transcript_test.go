package ptywright

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"ptywright/internal/workload"
)

func TestTranscriptDefaultBound(t *testing.T) {
	require.Equal(t, defaultTranscriptMaxChars, newTranscript(0).maxChars)
	require.Equal(t, defaultTranscriptMaxChars, newTranscript(-3).maxChars)
	require.Equal(t, 7, newTranscript(7).maxChars)
	require.Equal(t, 128*1024, defaultTranscriptMaxChars)
}

func TestTranscriptEmpty(t *testing.T) {
	tr := newTranscript(10)
	require.Equal(t, "", tr.String())
	require.Equal(t, "", tr.Tail(5))
	require.Equal(t, int64(0), tr.Cursor())
	text, next, dropped := tr.Since(0)
	require.Equal(t, "", text)
	require.Equal(t, int64(0), next)
	require.False(t, dropped)
	require.Empty(t, tr.Markers())
}

// TestTranscriptSplitEmoji splits a 4-byte emoji (and 2- and 3-byte runes)
// at every offset across two and across byte-by-byte writes.
func TestTranscriptSplitEmoji(t *testing.T) {
	for _, r := range []string{"é", "€", "🙂"} {
		input := "a" + r + "b"
		for cut := 0; cut <= len(input); cut++ {
			t.Run(fmt.Sprintf("%s/cut%d", r, cut), func(t *testing.T) {
				tr := newTranscript(100)
				tr.Write([]byte(input[:cut]))
				// Until the rune is complete, nothing of it is visible.
				require.True(t, utf8.ValidString(tr.String()))
				require.NotContains(t, tr.String(), "\uFFFD")
				tr.Write([]byte(input[cut:]))
				require.Equal(t, input, tr.String())
				require.Equal(t, int64(3), tr.Cursor())
			})
		}
		t.Run(r+"/bytewise", func(t *testing.T) {
			tr := newTranscript(100)
			for i := range len(input) {
				tr.Write([]byte{input[i]})
			}
			require.Equal(t, input, tr.String())
			require.Equal(t, int64(3), tr.Cursor())
		})
	}
	// Split across three writes, two held bytes then one then the rest.
	tr := newTranscript(100)
	tr.Write([]byte("\xf0\x9f"))
	tr.Write([]byte("\x99"))
	require.Equal(t, int64(0), tr.Cursor())
	tr.Write([]byte("\x82!"))
	require.Equal(t, "🙂!", tr.String())
}

func TestTranscriptInvalidUTF8(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"lone continuation", []string{"a\x80b"}, "a\uFFFDb"},
		{"invalid lead byte", []string{"\xffok"}, "\uFFFDok"},
		{"truncated then ascii", []string{"\xe2\x82", "x"}, "\uFFFD\uFFFDx"},
		{"truncated 4-byte then emoji", []string{"\xf0\x9f", "🙂"}, "\uFFFD\uFFFD🙂"},
		{"overlong encoding", []string{"\xc0\xaf"}, "\uFFFD\uFFFD"},
		{"surrogate", []string{"\xed\xa0\x80"}, "\uFFFD\uFFFD\uFFFD"},
		{"invalid inside valid", []string{"héllo\xfe wörld"}, "héllo\uFFFD wörld"},
		{"incomplete then invalid continuation", []string{"\xe2", "\x28\xa1"}, "\uFFFD(\uFFFD"},
		{"pending completed by long write", []string{"\xe2\x82", "\xac" + strings.Repeat("z", 10)}, "€" + strings.Repeat("z", 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTranscript(100)
			for _, w := range tt.writes {
				tr.Write([]byte(w))
			}
			require.Equal(t, tt.want, tr.String())
			require.Equal(t, int64(utf8.RuneCountInString(tt.want)), tr.Cursor())
		})
	}
}

func TestTranscriptIncompleteTailIsHeld(t *testing.T) {
	tr := newTranscript(100)
	tr.Write([]byte("ab\xe2\x82"))
	require.Equal(t, "ab", tr.String(), "an incomplete sequence is not shown yet")
	require.Equal(t, int64(2), tr.Cursor())
	tr.Write(nil)
	require.Equal(t, "ab", tr.String())
	tr.Write([]byte("\xac"))
	require.Equal(t, "ab€", tr.String())
}

func TestTranscriptBoundAndSince(t *testing.T) {
	tr := newTranscript(10)
	tr.Write([]byte("0123456"))
	require.Equal(t, "0123456", tr.String())

	text, next, dropped := tr.Since(0)
	require.Equal(t, "0123456", text)
	require.Equal(t, int64(7), next)
	require.False(t, dropped)

	tr.Write([]byte("789abcdef")) // 16 runes written, 10 kept
	require.Equal(t, "6789abcdef", tr.String())
	require.Equal(t, int64(16), tr.Cursor())

	text, next, dropped = tr.Since(7)
	require.Equal(t, "789abcdef", text)
	require.Equal(t, int64(16), next)
	require.False(t, dropped, "nothing since cursor 7 was dropped")

	text, next, dropped = tr.Since(2)
	require.Equal(t, "6789abcdef", text, "starts at the oldest retained rune")
	require.Equal(t, int64(16), next)
	require.True(t, dropped)

	text, next, dropped = tr.Since(6)
	require.Equal(t, "6789abcdef", text)
	require.Equal(t, int64(16), next)
	require.False(t, dropped, "rune 6 is the oldest retained")

	text, next, dropped = tr.Since(15)
	require.Equal(t, "f", text)
	require.Equal(t, int64(16), next)
	require.False(t, dropped)

	text, next, dropped = tr.Since(16)
	require.Equal(t, "", text)
	require.Equal(t, int64(16), next)
	require.False(t, dropped)

	text, next, dropped = tr.Since(1000)
	require.Equal(t, "", text, "a future cursor returns nothing")
	require.Equal(t, int64(16), next)
	require.False(t, dropped)

	text, _, dropped = tr.Since(-5)
	require.Equal(t, "6789abcdef", text)
	require.True(t, dropped)

	require.Equal(t, "def", tr.Tail(3))
	require.Equal(t, "6789abcdef", tr.Tail(10))
	require.Equal(t, "6789abcdef", tr.Tail(1000))
	require.Equal(t, "", tr.Tail(0))
	require.Equal(t, "", tr.Tail(-1))
}

func TestTranscriptNegativeCursorWithoutDrop(t *testing.T) {
	tr := newTranscript(10)
	tr.Write([]byte("abc"))
	text, next, dropped := tr.Since(-1)
	require.Equal(t, "abc", text)
	require.Equal(t, int64(3), next)
	require.False(t, dropped, "nothing was ever dropped")
}

// TestTranscriptBoundCountsRunes checks that the bound, Tail and Since count
// characters, not bytes, with multi-byte runes at the cut.
func TestTranscriptBoundCountsRunes(t *testing.T) {
	tr := newTranscript(4)
	tr.Write([]byte("aé€🙂b"))
	require.Equal(t, "é€🙂b", tr.String())
	require.Equal(t, int64(5), tr.Cursor())
	require.Equal(t, "🙂b", tr.Tail(2))
	text, _, dropped := tr.Since(2)
	require.Equal(t, "€🙂b", text)
	require.False(t, dropped)
	tr.Write([]byte("🙂🙂🙂"))
	require.Equal(t, "b🙂🙂🙂", tr.String())
	text, _, dropped = tr.Since(3)
	require.Equal(t, "🙂b🙂🙂🙂"[len("🙂"):], text)
	require.True(t, dropped)
}

// TestTranscriptMatchesReference drives the transcript with many write sizes
// and compares every accessor with a plain string model, on text with
// multi-byte characters and on ASCII alone (which Tail counts by bytes).
func TestTranscriptMatchesReference(t *testing.T) {
	const maxChars = 37
	for _, alphabet := range [][]string{
		{"a", "é", "€", "🙂", "\r\n", "\x1b[0m"},
		{"a", "bc", "\r\n", "\x1b[0m"},
		// Long ASCII stretches between rare other characters: the retained
		// text goes from all ASCII (its front cut by arithmetic) to mixed
		// and back.
		{"a", "the quick brown fox jumps ", "\r\n", "é", "0123456789", "bc", "\x1b[0m", "over the lazy dog ", "🙂", "xyz", "q", "rs"},
	} {
		testTranscriptMatchesReference(t, maxChars, alphabet)
	}
}

func testTranscriptMatchesReference(t *testing.T, maxChars int, alphabet []string) {
	for _, chunk := range []int{1, 2, 3, 5, 7, 64, 1000} {
		t.Run(fmt.Sprintf("%d-letters/chunk%d", len(alphabet), chunk), func(t *testing.T) {
			var all strings.Builder
			for i := range 400 {
				all.WriteString(alphabet[(i*7+i/3)%len(alphabet)])
			}
			data := all.String()
			tr := newTranscript(maxChars)
			var written []rune
			for off := 0; off < len(data); off += chunk {
				end := min(off+chunk, len(data))
				tr.Write([]byte(data[off:end]))
				// The model holds back the same incomplete tail.
				written = []rune(data[:lastCompleteBoundary(data, end)])
				keep := written[max(0, len(written)-maxChars):]
				require.Equal(t, string(keep), tr.String())
				require.Equal(t, int64(len(written)), tr.Cursor())
				for _, n := range []int{0, 1, 5, maxChars, maxChars + 5} {
					require.Equal(t, string(keep[max(0, len(keep)-n):]), tr.Tail(n))
				}
				for _, c := range []int{0, len(written) - maxChars - 1, len(written) - maxChars, len(written) - 3, len(written)} {
					text, next, dropped := tr.Since(int64(c))
					from := max(c, len(written)-maxChars, 0)
					require.Equal(t, string(written[from:]), text, "since %d", c)
					require.Equal(t, int64(len(written)), next)
					require.Equal(t, max(c, 0) < len(written)-maxChars, dropped, "since %d", c)
				}
			}
		})
	}
}

// lastCompleteBoundary returns end, or the start of the rune data[:end] cuts
// in half (data is valid UTF-8).
func lastCompleteBoundary(data string, end int) int {
	j := end
	for j > 0 && j > end-utf8.UTFMax && !utf8.RuneStart(data[j-1]) {
		j--
	}
	if j > 0 && !utf8.FullRuneInString(data[j-1:end]) {
		return j - 1
	}
	return end
}

func TestTranscriptMarkers(t *testing.T) {
	tr := newTranscript(10)
	require.NoError(t, tr.Mark("start"))
	tr.Write([]byte("hello"))
	require.NoError(t, tr.Mark("after-hello"))
	require.Equal(t, map[string]int64{"start": 0, "after-hello": 5}, tr.Markers())

	tr.Write([]byte(" world, long enough to trim"))
	require.NoError(t, tr.Mark("start"), "same label moves")
	require.Equal(t, map[string]int64{"start": 32, "after-hello": 5}, tr.Markers())

	m := tr.Markers()
	m["start"] = -1
	m["injected"] = 1
	require.Equal(t, map[string]int64{"start": 32, "after-hello": 5}, tr.Markers(), "Markers returns a copy")

	err := tr.Mark("")
	require.ErrorIs(t, err, ErrInvalidMarker)
	var fe *FieldError
	require.True(t, errors.As(err, &fe))
	require.Equal(t, "label", fe.Field)
}

func TestTranscriptMarkerLimit(t *testing.T) {
	tr := newTranscript(10)
	for i := range maxTranscriptMarkers {
		require.NoError(t, tr.Mark(fmt.Sprintf("m%d", i)))
	}
	require.Len(t, tr.Markers(), 64)
	err := tr.Mark("one-too-many")
	require.ErrorIs(t, err, ErrInvalidMarker)
	require.ErrorContains(t, err, "maximum of 64 distinct labels")
	require.Contains(t, err.Error(), "64")
	require.NotContains(t, tr.Markers(), "one-too-many")

	tr.Write([]byte("x"))
	require.NoError(t, tr.Mark("m3"), "moving an existing label is allowed at the limit")
	require.Equal(t, int64(1), tr.Markers()["m3"])
}

// TestTranscriptFloodStaysBounded checks with a small bound that the buffer
// never grows past a small multiple of it, whatever the volume.
func TestTranscriptFloodStaysBounded(t *testing.T) {
	const maxChars = 1 << 10
	tr := newTranscript(maxChars)
	// A continuous "y\n€" stream cut into 4 KiB writes: 4096 is not a
	// multiple of 5 bytes, so most writes split a €.
	stream := []byte(strings.Repeat("y\n€", 4096))
	const chunk = 4096
	const periods = 410 // about 8 MiB
	maxCap := 0
	for w := range 5 * periods {
		off := (w % 5) * chunk
		tr.Write(stream[off : off+chunk])
		maxCap = max(maxCap, cap(tr.buf))
	}
	require.Equal(t, int64(periods)*int64(utf8.RuneCount(stream)), tr.Cursor())
	require.Equal(t, maxChars, utf8.RuneCountInString(tr.String()))
	require.True(t, utf8.ValidString(tr.String()))
	require.NotContains(t, tr.String(), "\uFFFD")
	// Retained bytes (<= 4 per rune) plus as many dropped bytes awaiting
	// compaction, plus one chunk, times append's growth slack.
	require.LessOrEqual(t, maxCap, 2*(2*maxChars*utf8.UTFMax+chunk))
}

// TestTranscriptFlood100MB pushes 100 MB through 4 KiB writes with the
// default bound: the buffer and the heap stay flat.
func TestTranscriptFlood100MB(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MB")
	}
	tr := newTranscript(0)
	chunk := []byte(repeatToSize("yes\n", 4096))
	for range 256 { // reach steady state: 1 MiB > 2x the bound
		tr.Write(chunk)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	maxCap := 0
	for written := 0; written < 100<<20; written += len(chunk) {
		tr.Write(chunk)
		maxCap = max(maxCap, cap(tr.buf))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	require.Less(t, int64(after.HeapAlloc)-int64(before.HeapAlloc), int64(1<<20), "heap must not grow with output volume")
	require.LessOrEqual(t, maxCap, 2*(2*defaultTranscriptMaxChars+len(chunk)))
	require.Equal(t, defaultTranscriptMaxChars, len(tr.String()))
	require.Equal(t, int64(256+100<<20/len(chunk))*int64(len(chunk)), tr.Cursor())
}

func BenchmarkTranscriptWrite(b *testing.B) {
	for _, bc := range []struct {
		name  string
		chunk string
	}{
		{"ascii_4KiB", repeatToSize("the quick brown fox jumps over the lazy dog\r\n", 4096)},
		{"mixed_utf8_4KiB", repeatToSize("héllo wörld € 🙂 \x1b[1m日本語\x1b[0m\r\n", 4096)},
		{"invalid_4KiB", repeatToSize("ok\xff\xfe\x80 ", 4096)},
		{"claude_4KiB", string(workload.ClaudeRedraws(4096, 24, 80)[:4096])},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tr := newTranscript(0)
			chunk := []byte(bc.chunk)
			b.SetBytes(int64(len(chunk)))
			b.ReportAllocs()
			for b.Loop() {
				tr.Write(chunk)
			}
			b.ReportMetric(float64(cap(tr.buf))/1024, "bufKiB")
		})
	}
}

func BenchmarkTranscriptSinceShortDelta(b *testing.B) {
	tr := newTranscript(0)
	chunk := []byte(repeatToSize("héllo wörld 🙂\r\n", 4096))
	for range 100 {
		tr.Write(chunk)
	}
	b.ReportAllocs()
	for b.Loop() {
		cur := tr.Cursor()
		tr.Write(chunk[:100])
		_, _, _ = tr.Since(cur)
	}
}
