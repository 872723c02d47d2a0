package ptywrighttest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"ptywright"
	"ptywright/svg"
)

// update reports whether golden files are to be rewritten: -update on the
// command line or PTYWRIGHT_UPDATE=1 in the environment.
var update = registerUpdateFlag()

func registerUpdateFlag() func() bool {
	get := func(f *flag.Flag) bool {
		b, _ := strconv.ParseBool(f.Value.String()) // Not a bool flag: never set.
		return b
	}
	f := flag.Lookup("update")
	if f == nil {
		flag.Bool("update", false, "rewrite ptywrighttest golden files (testdata/NAME.screen, NAME.styles) with the screens the tests see")
		f = flag.Lookup("update")
	}
	return func() bool { return os.Getenv("PTYWRIGHT_UPDATE") == "1" || get(f) }
}

// DefaultMaskRune fills the cells MaskRect hides.
const DefaultMaskRune = '░'

// ScreenOption adjusts one golden comparison.
type ScreenOption func(*goldenConfig)

type goldenConfig struct {
	dir    string
	styles bool
	masks  []mask
	rows   int // -1: all
	// RequireScreen's retries (golden_wait.go).
	within, settle time.Duration
}

// newGoldenConfig applies opts to the defaults and checks name.
func newGoldenConfig(name string, opts []ScreenOption) (goldenConfig, error) {
	cfg := goldenConfig{dir: "testdata", rows: -1, within: DefaultGoldenTimeout, settle: DefaultSettle}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg, validName(name)
}

type mask struct {
	desc    string
	regex   bool
	pattern string
	repl    rune
	// rectangle masks
	row, col, h, w int
}

// MaskRegex hides every match of pattern (Go RE2 syntax, matched in each
// row separately) behind repl, one repl per column the match covers, so a
// wide character becomes two. Use it for clocks, spinners, temporary paths
// and counters. Masked cells lose their style too. repl must be a narrow,
// printable character.
func MaskRegex(pattern string, repl rune) ScreenOption {
	return func(c *goldenConfig) {
		c.masks = append(c.masks, mask{desc: fmt.Sprintf("MaskRegex(%q)", pattern), regex: true, pattern: pattern, repl: repl})
	}
}

// MaskRect hides the h rows by w columns starting at row, col (zero-based)
// behind DefaultMaskRune. Parts outside the screen are ignored; a wide
// character cut by the edge is hidden whole.
func MaskRect(row, col, h, w int) ScreenOption {
	return func(c *goldenConfig) {
		c.masks = append(c.masks, mask{desc: fmt.Sprintf("MaskRect(%d, %d, %d, %d)", row, col, h, w), row: row, col: col, h: h, w: w, repl: DefaultMaskRune})
	}
}

// IgnoreRowsAfter compares only the first n rows: the rows from n on (a
// status bar, a clock in the last line) are neither written nor compared.
func IgnoreRowsAfter(n int) ScreenOption { return func(c *goldenConfig) { c.rows = n } }

// WithStyles also compares the styles layer, NAME.styles: a letter per
// cell naming its style (colours, bold, ...) and the cursor.
func WithStyles() ScreenOption { return func(c *goldenConfig) { c.styles = true } }

// GoldenDir keeps the golden files in dir instead of "testdata".
func GoldenDir(dir string) ScreenOption { return func(c *goldenConfig) { c.dir = dir } }

// RequireSnapshot compares a snapshot taken with cells, such as a
// replayed screen's, with the golden file testdata/NAME.screen, as
// RequireScreen does, once: a snapshot does not change.
func RequireSnapshot(tb testing.TB, snap ptywright.ScreenSnapshot, name string, opts ...ScreenOption) {
	tb.Helper()
	cfg, err := newGoldenConfig(name, opts)
	if err != nil {
		tb.Fatalf("ptywrighttest: golden %q: %v", name, err)
	}
	if update() {
		updateGolden(tb, snap, name, cfg)
		return
	}
	report, err := compareGolden(snap, name, cfg)
	if err != nil {
		tb.Fatalf("ptywrighttest: golden %q: %v", name, err)
	}
	failGolden(tb, snap, name, cfg, report)
}

// goldenBase is the golden files' path without extension.
func goldenBase(name string, cfg goldenConfig) string {
	return filepath.Join(cfg.dir, filepath.FromSlash(name))
}

// updateGolden writes snap as the golden files (-update).
func updateGolden(tb testing.TB, snap ptywright.ScreenSnapshot, name string, cfg goldenConfig) {
	tb.Helper()
	g, err := renderGolden(snap, cfg)
	if err != nil {
		tb.Fatalf("ptywrighttest: golden %q: %v", name, err)
	}
	base := goldenBase(name, cfg)
	if err := writeGolden(base+".screen", g.text); err != nil {
		tb.Fatalf("ptywrighttest: update golden: %v", err)
	}
	if cfg.styles {
		if err := writeGolden(base+".styles", g.styles); err != nil {
			tb.Fatalf("ptywrighttest: update golden: %v", err)
		}
	}
	_ = os.Remove(base + ".failed.svg") // Best effort: a stale picture of an old failure.
}

// compareGolden compares snap with the golden files: "" when they match,
// otherwise what differs (a diff per file, or the screen when a file is
// missing). err is a mask, a snapshot or a file that cannot be read.
func compareGolden(snap ptywright.ScreenSnapshot, name string, cfg goldenConfig) (string, error) {
	g, err := renderGolden(snap, cfg)
	if err != nil {
		return "", err
	}
	base := goldenBase(name, cfg)
	files := []struct{ path, want string }{{base + ".screen", g.text}}
	if cfg.styles {
		files = append(files, struct{ path, want string }{base + ".styles", g.styles})
	}
	var report strings.Builder
	for _, f := range files {
		got, err := os.ReadFile(f.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(&report, "golden file %s does not exist; run the test with -update to create it. The screen is:\n%s", f.path, indent(f.want))
		case err != nil:
			return "", fmt.Errorf("read golden: %w", err)
		default:
			if d := unifiedDiff(f.path+" (golden)", name+" (actual)", splitLines(string(got)), splitLines(f.want), 3); d != "" {
				fmt.Fprintf(&report, "screen does not match %s (run the test with -update to accept it):\n%s", f.path, d)
			}
		}
	}
	return report.String(), nil
}

// failGolden fails the test with report and a picture of snap, or, when
// report is empty, removes the picture of an earlier failure.
func failGolden(tb testing.TB, snap ptywright.ScreenSnapshot, name string, cfg goldenConfig, report string) {
	tb.Helper()
	svgPath := goldenBase(name, cfg) + ".failed.svg"
	if report == "" {
		_ = os.Remove(svgPath) // Best effort: a stale picture of an old failure.
		return
	}
	if err := writeSVG(svgPath, snap, name); err != nil {
		report += fmt.Sprintf("(no picture: %v)\n", err)
	} else {
		report += fmt.Sprintf("picture of the actual screen: %s\n", svgPath)
	}
	tb.Fatal("ptywrighttest: " + report)
}

func validName(name string) error {
	switch {
	case name == "":
		return errors.New("name is empty")
	case filepath.IsAbs(name) || strings.HasPrefix(name, "/"):
		return errors.New("name must be relative to the golden directory")
	case strings.HasSuffix(name, ".screen") || strings.HasSuffix(name, ".styles"):
		return errors.New("name must not carry the .screen or .styles extension")
	}
	for _, part := range strings.Split(filepath.ToSlash(name), "/") {
		if part == ".." || part == "." || part == "" {
			return fmt.Errorf("name must not contain %q path elements", part)
		}
	}
	return nil
}

func writeGolden(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

func writeSVG(path string, snap ptywright.ScreenSnapshot, name string) error {
	var buf bytes.Buffer
	if err := svg.Render(&buf, snap, svg.Options{Title: name}); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range splitLines(s) {
		b.WriteString("\t")
		b.WriteString(escapeControls(l))
		b.WriteByte('\n')
	}
	return b.String()
}

// golden is a screen rendered as its golden files.
type golden struct {
	text, styles string
}

// renderGolden applies the masks to the snapshot's cells and renders the
// text layer and the styles layer.
func renderGolden(snap ptywright.ScreenSnapshot, cfg goldenConfig) (golden, error) {
	if len(snap.Cells) == 0 {
		return golden{}, errors.New("the snapshot has no cells (take it with cells)")
	}
	rows, cols := snap.Size.Rows, snap.Size.Cols
	grid := make([][]ptywright.Cell, rows)
	for r := range grid {
		grid[r] = make([]ptywright.Cell, cols)
		for c := range grid[r] {
			grid[r][c] = ptywright.Cell{Row: r, Col: c, Text: " ", Style: plainStyle}
		}
	}
	for _, c := range snap.Cells {
		if c.Row >= 0 && c.Row < rows && c.Col >= 0 && c.Col < cols {
			grid[c.Row][c.Col] = c
		}
	}
	for _, m := range cfg.masks {
		if err := applyMask(grid, m); err != nil {
			return golden{}, err
		}
	}
	if cfg.rows >= 0 && cfg.rows < rows {
		grid = grid[:cfg.rows]
	}
	var text strings.Builder
	for _, row := range grid {
		var line strings.Builder
		for _, c := range row {
			if !c.WideContinuation {
				line.WriteString(c.Text)
			}
		}
		text.WriteString(strings.TrimRight(line.String(), " "))
		text.WriteByte('\n')
	}
	return golden{text: text.String(), styles: renderStyles(grid, snap.Cursor)}, nil
}

var plainStyle = ptywright.CellStyle{Foreground: "default", Background: "default"}

func applyMask(grid [][]ptywright.Cell, m mask) error {
	if m.repl < 0x20 || (m.repl >= 0x7f && m.repl < 0xa0) || !narrow(m.repl) {
		return fmt.Errorf("%s: replacement %q must be a narrow, printable character", m.desc, m.repl)
	}
	hide := func(row []ptywright.Cell, c int) {
		if row[c].WideContinuation && c > 0 {
			c-- // Hide the pair from its head.
		}
		row[c].Text, row[c].Style = string(m.repl), plainStyle
		if row[c].Wide {
			row[c].Wide = false
			if c+1 < len(row) {
				row[c+1] = ptywright.Cell{Row: row[c].Row, Col: c + 1, Text: string(m.repl), Style: plainStyle}
			}
		}
	}
	if !m.regex {
		if m.row < 0 || m.col < 0 || m.h <= 0 || m.w <= 0 {
			return fmt.Errorf("%s: row and col must be >= 0, height and width > 0", m.desc)
		}
		for r := m.row; r < m.row+m.h && r < len(grid); r++ {
			for c := m.col; c < m.col+m.w && c < len(grid[r]); c++ {
				hide(grid[r], c)
			}
		}
		return nil
	}
	re, err := regexp.Compile(m.pattern)
	if err != nil {
		return fmt.Errorf("%s: %v", m.desc, err)
	}
	for _, row := range grid {
		var line strings.Builder
		starts := make([]int, len(row)) // byte offset of each cell's text, -1 for continuations
		for c, cell := range row {
			starts[c] = -1
			if !cell.WideContinuation {
				starts[c] = line.Len()
				line.WriteString(cell.Text)
			}
		}
		for _, loc := range re.FindAllStringIndex(line.String(), -1) {
			if loc[1] == loc[0] {
				continue
			}
			for c := range row {
				if starts[c] >= loc[0] && starts[c] < loc[1] {
					hide(row, c)
				}
			}
		}
	}
	return nil
}

// narrow reports whether r takes one column, as the terminal emulator
// itself measures it.
func narrow(r rune) bool {
	s, err := ptywright.NewScreen(ptywright.Size{Rows: 1, Cols: 4})
	if err != nil {
		return false
	}
	defer s.Close()
	_, _ = s.Write([]byte(string(r))) // Never fails.
	cells := s.Snapshot(true).Cells
	return !cells[0].Wide && cells[0].Text == string(r)
}

// styleKeys name styles in the styles layer, in order of first use.
const styleKeys = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// renderStyles writes the cursor, then one line per row with a character
// per column ('.' for the default style, trailing ones trimmed), then a
// blank line and the legend.
func renderStyles(grid [][]ptywright.Cell, cur ptywright.Cursor) string {
	var b strings.Builder
	switch {
	case cur.Row >= len(grid):
		b.WriteString("cursor: in the ignored rows\n")
	case !cur.Visible:
		fmt.Fprintf(&b, "cursor: row %d, col %d, hidden\n", cur.Row, cur.Col)
	default:
		fmt.Fprintf(&b, "cursor: row %d, col %d\n", cur.Row, cur.Col)
	}
	keys := map[ptywright.CellStyle]rune{}
	var legend []string
	for _, row := range grid {
		var line strings.Builder
		for _, c := range row {
			if c.Style == plainStyle {
				line.WriteByte('.')
				continue
			}
			k, ok := keys[c.Style]
			if !ok {
				n := len(keys)
				if n < len(styleKeys) {
					k = rune(styleKeys[n])
				} else {
					k = rune(0x100 + n - len(styleKeys)) // Latin Extended-A and on
				}
				keys[c.Style] = k
				legend = append(legend, fmt.Sprintf("%c: %s", k, describeStyle(c.Style)))
			}
			line.WriteRune(k)
		}
		b.WriteString(strings.TrimRight(line.String(), "."))
		b.WriteByte('\n')
	}
	if len(legend) > 0 {
		b.WriteString("\n")
		b.WriteString(strings.Join(legend, "\n"))
		b.WriteByte('\n')
	}
	return b.String()
}

func describeStyle(st ptywright.CellStyle) string {
	var parts []string
	if st.Foreground != "default" {
		parts = append(parts, "fg="+st.Foreground)
	}
	if st.Background != "default" {
		parts = append(parts, "bg="+st.Background)
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{st.Bold, "bold"}, {st.Dim, "dim"}, {st.Italic, "italic"}, {st.Underline, "underline"}, {st.Inverse, "inverse"}} {
		if f.on {
			parts = append(parts, f.name)
		}
	}
	return strings.Join(parts, " ")
}
