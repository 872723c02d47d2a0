package ptywright

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRecorderOutput measures what recording adds per byte of output
// (redaction with hold-back, JSON encoding, the file write), for a TUI's
// escape-heavy output and for plain scrolling text, redacted and raw.
func BenchmarkRecorderOutput(b *testing.B) {
	var tui, plain strings.Builder
	for i := 0; tui.Len() < 256<<10; i++ {
		fmt.Fprintf(&tui, "\x1b[%d;1H\x1b[2K\x1b[1;3%dm%04d\x1b[0m \x1b[38;5;%dmstatus %d\x1b[0m", i%24+1, i%8, i, i%256, i)
	}
	for i := 0; plain.Len() < 256<<10; i++ {
		fmt.Fprintf(&plain, "line %06d the quick brown fox jumps over the lazy dog 0123456789\r\n", i)
	}
	for _, in := range []struct {
		name string
		data string
	}{{"tui", tui.String()}, {"plain", plain.String()}} {
		for _, red := range []struct {
			name string
			r    *Redactor
		}{{"redacted", DefaultRedactor()}, {"raw", nil}} {
			b.Run(in.name+"/"+red.name, func(b *testing.B) {
				b.SetBytes(int64(len(in.data)))
				dir := b.TempDir()
				n := 0
				for b.Loop() {
					n++
					r, err := newRecorder(filepath.Join(dir, fmt.Sprint(n)), Size{Rows: 24, Cols: 80}, nil, red.r)
					if err != nil {
						b.Fatal(err)
					}
					for i := 0; i < len(in.data); i += 4096 {
						r.output([]byte(in.data[i:min(i+4096, len(in.data))]))
						r.flush() // As the session does after each feed.
					}
					if err := r.close(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
