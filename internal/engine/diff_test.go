package engine

import (
	"bytes"
	"fmt"
	"image/color"
	"strings"
	"sync"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"ptywright/internal/vtcore"
)

// The differential tests feed the same bytes to vtcore and to x/vt (the
// oracle) and require the same grid (text, width and full style of every
// cell), cursor position and visibility, modes, title and replies.
//
// Deliberate differences, where x/vt departs from xterm, are kept out of
// the comparison (see internal/vtcore/doc.go for the list):
//   - DSR 5: x/vt answers ESC[?0n, xterm ESC[0n; the oracle's reply is
//     rewritten before comparing.
//   - Every other one is counted by vtcore (Terminal.Divergences): a stream
//     is compared up to the chunk where vtcore first departs from x/vt, and
//     not after. The random generator avoids them so that its cases are
//     compared to the end: no IRM, SO/SI, NEL, titles holding ';', CPR
//     under DECOM, and wide characters only in runs that end before the
//     last column.
//   - x/vt can also leave the cursor outside the grid (a cursor saved
//     before a shrink and restored) or panic; a stream stops being compared
//     there too.

// diffPair drives both engines with the same input.
type diffPair struct {
	oracle *XVT
	core   *VTCore

	mu            sync.Mutex
	oracleReplies []byte
	barrier       chan struct{}
	coreReplies   []byte
	rows, cols    int
	// broken is set once the oracle has panicked or lost its cursor; the
	// pair is not compared after that.
	broken string
}

// replyBarrier is written into the oracle's reply pipe to learn when every
// reply it produced before has been delivered.
var replyBarrier = []byte("\x00barrier\x00")

func newDiffPair(rows, cols int) *diffPair {
	p := &diffPair{rows: rows, cols: cols, barrier: make(chan struct{}, 1)}
	p.oracle = NewXVT(rows, cols, func(b []byte) {
		if bytes.Equal(b, replyBarrier) {
			p.barrier <- struct{}{}
			return
		}
		p.mu.Lock()
		p.oracleReplies = append(p.oracleReplies, b...)
		p.mu.Unlock()
	})
	p.oracle.CursorMoved = p.checkOracle
	p.core = NewVTCore(rows, cols, func(b []byte) { p.coreReplies = append(p.coreReplies, b...) })
	// Without scrollback, growing adds blank rows at the bottom as x/vt
	// does; with it, rows come back from history (a deliberate difference).
	p.core.term.SetScrollback(0)
	return p
}

func (p *diffPair) Close() { p.oracle.Close() }

// write feeds both engines. An oracle panic marks the pair broken.
func (p *diffPair) Write(b []byte) {
	p.core.Write(b)
	p.checkCore()
	if p.broken != "" {
		return
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				p.broken = fmt.Sprintf("x/vt panicked: %v", r)
			}
		}()
		p.oracle.Write(b)
	}()
	p.checkOracle()
}

func (p *diffPair) Resize(rows, cols int) {
	p.core.Resize(rows, cols)
	p.checkCore()
	if p.broken != "" {
		p.rows, p.cols = rows, cols
		return
	}
	p.oracle.Resize(rows, cols)
	p.rows, p.cols = rows, cols
	p.checkOracle()
}

// checkCore marks the pair broken once vtcore has departed from x/vt on
// purpose.
func (p *diffPair) checkCore() {
	if p.broken == "" && p.core.term.Divergences() > 0 {
		p.broken = "vtcore departed from x/vt on purpose"
	}
}

// checkOracle marks the pair broken when x/vt has put its cursor outside the
// grid, which vtcore deliberately never does.
func (p *diffPair) checkOracle() {
	if p.broken != "" {
		return
	}
	pos := p.oracle.emu.CursorPosition()
	if pos.X < 0 || pos.Y < 0 || pos.X >= p.oracle.emu.Width() || pos.Y >= p.oracle.emu.Height() {
		p.broken = fmt.Sprintf("x/vt cursor left the grid: %v", pos)
	}
}

// replies returns what each engine answered since the last call, the
// oracle's DSR 5 answer rewritten to xterm's.
func (p *diffPair) replies() (oracle, core string) {
	_, _ = p.oracle.emu.InputPipe().Write(replyBarrier) // Blocks until the pump has read it.
	<-p.barrier
	p.mu.Lock()
	oracle = strings.ReplaceAll(string(p.oracleReplies), "\x1b[?0n", "\x1b[0n")
	p.oracleReplies = nil
	p.mu.Unlock()
	core = string(p.coreReplies)
	p.coreReplies = nil
	return oracle, core
}

// diff returns a description of the first differences between the engines,
// or "" when they agree (or the oracle is broken).
func (p *diffPair) diff() string {
	if p.broken != "" {
		return ""
	}
	var out []string
	add := func(format string, args ...any) {
		if len(out) < 8 {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	or, oc := p.oracle.Cursor()
	cr, cc := p.core.Cursor()
	if or != cr || oc != cc {
		add("cursor: x/vt row %d col %d, vtcore row %d col %d", or, oc, cr, cc)
	}
	if om, cm := p.oracle.Modes(), p.core.Modes(); om != cm {
		add("modes: x/vt %+v, vtcore %+v", om, cm)
	}
	term := p.core.term
	for r := range p.rows {
		for c := range p.cols {
			oc := p.oracle.emu.CellAt(c, r)
			want := oracleCell(oc)
			cell := term.Cell(r, c)
			got := diffCell{text: term.Text(cell), width: cell.Width(), style: cell.Style}
			if want != got {
				add("cell row %d col %d: x/vt %+v, vtcore %+v", r, c, want, got)
			}
		}
	}
	if ro, rc := p.replies(); ro != rc {
		add("replies: x/vt %q, vtcore %q", ro, rc)
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n" + p.screens()
}

// screens renders both grids side by side for a failure message.
func (p *diffPair) screens() string {
	var b strings.Builder
	for r := range p.rows {
		fmt.Fprintf(&b, "%3d x/vt  |%s|\n    vtcore|%s|\n", r, p.oracle.Line(r), p.core.Line(r))
	}
	return b.String()
}

type diffCell struct {
	text  string
	width int
	style vtcore.Style
}

func oracleCell(c *uv.Cell) diffCell {
	if c == nil {
		return diffCell{text: "<nil>"}
	}
	return diffCell{
		text:  c.Content,
		width: c.Width,
		style: vtcore.Style{
			Fg:             oracleColor(c.Style.Fg),
			Bg:             oracleColor(c.Style.Bg),
			UnderlineColor: oracleColor(c.Style.UnderlineColor),
			Attrs:          vtcore.Attr(c.Style.Attrs),
			Underline:      vtcore.Underline(c.Style.Underline),
		},
	}
}

// oracleColor maps an x/vt colour to vtcore's, the way the root package
// renders both: palette colours by index, others as 8-bit RGB, transparent
// as default.
func oracleColor(c color.Color) vtcore.Color {
	switch v := c.(type) {
	case nil:
		return vtcore.DefaultColor
	case ansi.BasicColor:
		return vtcore.IndexedColor(uint8(v))
	case ansi.IndexedColor:
		return vtcore.IndexedColor(uint8(v))
	}
	r, g, b, a := c.RGBA()
	if a == 0 {
		return vtcore.DefaultColor
	}
	return vtcore.RGBColor(uint8(r>>8), uint8(g>>8), uint8(b>>8))
}

// runDiff feeds chunks to a fresh pair and fails at the first checkpoint
// at which the engines differ; it checks after every chunk, or after every
// few when there are many (about checks times, and after the last). It
// returns how many bytes were compared before the pair broke (all of them
// when it did not).
func runDiff(t *testing.T, name string, rows, cols, checks int, chunks [][]byte) (compared int) {
	t.Helper()
	p := newDiffPair(rows, cols)
	defer p.Close()
	every := max(1, len(chunks)/checks)
	fed := 0
	for i, ch := range chunks {
		p.Write(ch)
		fed += len(ch)
		if p.broken != "" {
			t.Logf("%s: compared %d bytes, stopped in chunk %d of %d: %s", name, compared, i+1, len(chunks), p.broken)
			return compared
		}
		if i%every != 0 && i != len(chunks)-1 {
			continue
		}
		if d := p.diff(); d != "" {
			t.Fatalf("%s: after chunk %d of %d (%q):\n%s", name, i+1, len(chunks), ch, d)
		}
		compared = fed
	}
	return compared
}
