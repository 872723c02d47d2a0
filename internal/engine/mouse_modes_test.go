package engine

import "testing"

// Both engines report the mouse modes a program turns on and off: the last
// tracking mode set wins, resetting it turns tracking off, and SGR (1006)
// is apart.
func TestMouseModes(t *testing.T) {
	cases := []struct {
		input    string
		tracking int
		sgr      bool
	}{
		{"", 0, false},
		{"\x1b[?1000h", 1000, false},
		{"\x1b[?1000h\x1b[?1006h", 1000, true},
		{"\x1b[?1000;1002;1006h", 1002, true},
		{"\x1b[?1003h\x1b[?1006h\x1b[?1003l", 0, true},
		{"\x1b[?1002h\x1b[?1000l", 1002, false},
		{"\x1b[?9h", 9, false},
		{"\x1b[?1000h\x1b[?1006h\x1b[?1006l\x1b[?1000l", 0, false},
	}
	for _, c := range cases {
		for name, e := range map[string]Engine{"vtcore": NewVTCore(5, 20, nil), "xvt": NewXVT(5, 20, nil)} {
			e.Write([]byte(c.input))
			m := e.Modes()
			if m.MouseTracking != c.tracking || m.MouseSGR != c.sgr {
				t.Errorf("%s %q: tracking %d sgr %v, want %d %v", name, c.input, m.MouseTracking, m.MouseSGR, c.tracking, c.sgr)
			}
			e.Close()
		}
	}
}
