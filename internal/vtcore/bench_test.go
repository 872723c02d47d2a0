package vtcore_test

import (
	"fmt"
	"strings"
	"testing"

	"ptywright/internal/vtcore"
)

// BenchmarkWrite measures the emulator alone on scrolling text, a redrawn
// full-screen program and wide text, without a scrollback and with a
// Session's default one.
func BenchmarkWrite(b *testing.B) {
	var plain, mixed, wide strings.Builder
	for i := 0; plain.Len() < 256<<10; i++ {
		fmt.Fprintf(&plain, "line %06d the quick brown fox jumps over the lazy dog 0123456789\r\n", i)
	}
	for i := 0; mixed.Len() < 256<<10; i++ {
		fmt.Fprintf(&mixed, "\x1b[%d;1H\x1b[2K\x1b[1;3%dm%04d\x1b[0m \x1b[38;5;%dmstatus\x1b[0m \x1b[38;2;%d;100;200mrgb text\x1b[0m \x1b[7m[%d]\x1b[0m", i%24+1, i%8, i, i%256, i%256, i)
	}
	for i := 0; wide.Len() < 256<<10; i++ {
		fmt.Fprintf(&wide, "%d 中文字符 ─── résumé 🙂 │ ✓ done\r\n", i)
	}
	for _, in := range []struct {
		name string
		data string
	}{{"plain", plain.String()}, {"mixed", mixed.String()}, {"wide", wide.String()}} {
		for _, size := range [][2]int{{24, 80}, {60, 200}} {
			for _, hist := range []int{0, 3000} {
				b.Run(fmt.Sprintf("%s/%dx%d/scrollback=%d", in.name, size[1], size[0], hist), func(b *testing.B) {
					term := vtcore.New(size[0], size[1], nil)
					term.SetScrollback(hist) // 3000: a Session's default
					data := []byte(in.data)
					b.SetBytes(int64(len(data)))
					for b.Loop() {
						for off := 0; off < len(data); off += 4096 {
							term.Write(data[off:min(off+4096, len(data))])
						}
					}
				})
			}
		}
	}
}
