package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkEngines runs the default engine (vtcore) and the x/vt oracle
// side by side on the inputs of BenchmarkScreenParse (scrolling text, a
// redrawn full-screen program) and on the Claude Code captures, so the
// ratio between them can be measured on any machine.
func BenchmarkEngines(b *testing.B) {
	var plain, mixed strings.Builder
	for i := 0; plain.Len() < 256<<10; i++ {
		fmt.Fprintf(&plain, "line %06d the quick brown fox jumps over the lazy dog 0123456789\r\n", i)
	}
	claude := claudeCaptures(b)
	for _, size := range [][2]int{{24, 80}, {60, 200}} {
		rows, cols := size[0], size[1]
		mixed.Reset()
		for i := 0; mixed.Len() < 256<<10; i++ {
			fmt.Fprintf(&mixed, "\x1b[%d;1H\x1b[2K\x1b[1;3%dm%04d\x1b[0m \x1b[38;5;%dmstatus\x1b[0m \x1b[38;2;%d;100;200mrgb text\x1b[0m \x1b[7m[%d]\x1b[0m", i%rows+1, i%8, i, i%256, i%256, i)
		}
		inputs := []struct {
			name string
			data []byte
		}{{"plain", []byte(plain.String())}, {"mixed", []byte(mixed.String())}, {"claude", claude}}
		for _, in := range inputs {
			for _, name := range []string{"xvt", "vtcore"} {
				b.Run(fmt.Sprintf("%s/%s/%dx%d", in.name, name, cols, rows), func(b *testing.B) {
					var e Engine = NewVTCore(rows, cols, nil)
					if name == "xvt" {
						v := NewXVT(rows, cols, nil)
						defer v.Close()
						e = v
					}
					b.SetBytes(int64(len(in.data)))
					for b.Loop() {
						for off := 0; off < len(in.data); off += 4096 {
							e.Write(in.data[off:min(off+4096, len(in.data))])
						}
					}
				})
			}
		}
	}
}

// claudeCaptures concatenates the 24x80 Claude Code captures, with CRLF
// line ends so they scroll as a terminal would show them.
func claudeCaptures(tb testing.TB) []byte {
	paths, err := filepath.Glob("../../testdata/fixtures/claude_code/*_24x80.ansi")
	require.NoError(tb, err)
	require.NotEmpty(tb, paths)
	var all []byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(tb, err)
		all = append(all, bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))...)
	}
	return all
}

// BenchmarkLines measures building the screen's text (Lines), which every
// look of a wait and every snapshot at a new sequence does: a screen of
// short lines (a shell, the stamp child of the wait benchmarks) and the
// last screen of the Claude Code captures, looked at again unchanged (its
// rows' texts kept since the last look: vtcore's KeptRowText). See
// BenchmarkLinesAfterALine for a look after the screen scrolled.
func BenchmarkLines(b *testing.B) {
	var short strings.Builder
	for i := range 200 {
		fmt.Fprintf(&short, "M%d T=1764121234567890123\r\n", i)
	}
	for _, in := range []struct {
		name string
		data []byte
	}{{"short", []byte(short.String())}, {"claude", claudeCaptures(b)}} {
		for _, size := range [][2]int{{24, 80}, {60, 200}} {
			b.Run(fmt.Sprintf("%s/%dx%d", in.name, size[1], size[0]), func(b *testing.B) {
				e := NewVTCore(size[0], size[1], nil)
				e.Write(in.data)
				for b.Loop() {
					e.Lines()
				}
			})
		}
	}
}

// BenchmarkLinesAfterALine measures a line printed at the bottom of a full
// screen of short lines, the screen scrolling by one, and then Lines: what
// a wait on a program that prints a line at a time does per line.
func BenchmarkLinesAfterALine(b *testing.B) {
	for _, size := range [][2]int{{24, 80}, {60, 200}} {
		b.Run(fmt.Sprintf("%dx%d", size[1], size[0]), func(b *testing.B) {
			e := NewVTCore(size[0], size[1], nil)
			for i := range size[0] {
				e.Write(fmt.Appendf(nil, "M%d T=1764121234567890123\r\n", i))
			}
			e.Lines()
			line := []byte("M1000 T=1764121234567890123\r\n")
			for b.Loop() {
				e.Write(line)
				e.Lines()
			}
		})
	}
}
