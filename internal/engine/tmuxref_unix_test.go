//go:build unix

package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// tmux is the reference terminal of the fidelity tests: when our screen
// differs from tmux's on the same bytes, we are wrong. A tmuxPane replays
// bytes into a detached tmux (its own server and socket) and reads back what
// tmux made of them: rows (capture-pane), cursor and modes (display).

// termState is what the fidelity tests compare: the rows' text (trailing
// spaces trimmed), the cursor, and the modes tmux reports.
type termState struct {
	lines    []string
	row, col int
	alt      bool
	visible  bool
	title    string
}

func (s termState) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cursor row %d col %d, alt %v, visible %v, title %q\n", s.row, s.col, s.alt, s.visible, s.title)
	for i, l := range s.lines {
		fmt.Fprintf(&b, "%3d|%s|\n", i, l)
	}
	return b.String()
}

// replayStep is a chunk of program output, or a resize when rows > 0.
type replayStep struct {
	data       []byte
	rows, cols int
}

func resizeStep(rows, cols int) replayStep { return replayStep{rows: rows, cols: cols} }

func outputStep(s string) replayStep { return replayStep{data: []byte(s)} }

// requireTmux returns the tmux binary, skipping the test when it is missing
// and failing it under CI (scripts/install-test-deps.sh installs it).
func requireTmux(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("tmux is required in CI (scripts/install-test-deps.sh installs it): %v", err)
		}
		t.Skip("tmux not installed; run scripts/install-test-deps.sh")
	}
	return path
}

var tmuxSockets atomic.Int64

// tmuxPane is a detached tmux session whose only pane prints the files it
// is told to, with the terminal in raw mode so the bytes reach tmux as
// they are.
type tmuxPane struct {
	t          testing.TB
	bin, sock  string
	dir        string
	ctl, ack   *os.File
	n          int
	rows, cols int
}

// replayScript runs in the pane: for each file named on the control FIFO,
// print it, then ask for the cursor position and wait for as many cursor
// reports as the file asked for plus this one. tmux answers in order, so
// when the last report arrives tmux has parsed everything before it.
const replayScript = `stty raw -echo
exec 3<"$1/ctl" 4>"$1/ack"
while IFS=' ' read -r n f <&3; do
	cat "$f"
	printf '\033[6n'
	i=0
	while [ "$i" -le "$n" ]; do IFS= read -r -d R _; i=$((i+1)); done
	printf 'k' >&4
done
`

func newTmuxPane(t testing.TB, rows, cols int) *tmuxPane {
	t.Helper()
	bin := requireTmux(t)
	dir := t.TempDir()
	for _, name := range []string{"ctl", "ack"} {
		require.NoError(t, syscall.Mkfifo(filepath.Join(dir, name), 0o600))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "replay.sh"), []byte(replayScript), 0o700))
	p := &tmuxPane{t: t, bin: bin, dir: dir, rows: rows, cols: cols,
		sock: fmt.Sprintf("ptyw-ref-%d-%d", os.Getpid(), tmuxSockets.Add(1))}
	// Opened read-write so that neither side blocks on open.
	var err error
	p.ctl, err = os.OpenFile(filepath.Join(dir, "ctl"), os.O_RDWR, 0)
	require.NoError(t, err)
	p.ack, err = os.OpenFile(filepath.Join(dir, "ack"), os.O_RDWR, 0)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = exec.Command(bin, "-L", p.sock, "kill-server").Run() // Best effort: the server may be gone.
		_ = p.ctl.Close()
		_ = p.ack.Close()
	})
	p.tmux("-f", "/dev/null", "new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows),
		"bash --norc --noprofile "+filepath.Join(dir, "replay.sh")+" "+dir)
	// Nothing of tmux's own may change the pane: no status line, no
	// automatic renaming, the size fixed to the one asked for.
	p.tmux("set", "-g", "status", "off")
	p.tmux("set", "-g", "window-size", "manual")
	p.tmux("resize-window", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows))
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.bin, append([]string{"-L", p.sock}, args...)...)
	cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TMUX=")
	out, err := cmd.CombinedOutput()
	require.NoError(p.t, err, "tmux %v: %s", args, out)
	return string(out)
}

// write makes the pane print data and returns once tmux has parsed it.
func (p *tmuxPane) Write(data []byte) {
	p.t.Helper()
	p.n++
	f := filepath.Join(p.dir, fmt.Sprintf("seg%d", p.n))
	require.NoError(p.t, os.WriteFile(f, data, 0o600))
	queries := bytes.Count(data, []byte("\x1b[6n"))
	_, err := fmt.Fprintf(p.ctl, "%d %s\n", queries, f)
	require.NoError(p.t, err)
	require.NoError(p.t, p.ack.SetReadDeadline(time.Now().Add(30*time.Second)))
	var b [1]byte
	_, err = p.ack.Read(b[:])
	require.NoError(p.t, err, "tmux did not finish replaying segment %d", p.n)
}

func (p *tmuxPane) Resize(rows, cols int) {
	p.t.Helper()
	p.tmux("resize-window", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows))
	p.rows, p.cols = rows, cols
}

// state reads the pane's rows, cursor and modes.
func (p *tmuxPane) state() termState {
	p.t.Helper()
	// With -e tmux marks line-drawing cells (DEC Special Graphics) with SO
	// and SI, which plain -p loses; the escapes are stripped again.
	out := p.tmux("capture-pane", "-p", "-e")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, l := range lines {
		lines[i] = plainCapture(l)
	}
	for len(lines) < p.rows {
		lines = append(lines, "")
	}
	f := strings.Split(strings.TrimSpace(p.tmux("display", "-p", "#{cursor_x} #{cursor_y} #{alternate_on} #{cursor_flag}")), " ")
	require.Len(p.t, f, 4)
	col, _ := strconv.Atoi(f[0])
	row, _ := strconv.Atoi(f[1])
	// tmux keeps a pending wrap as the cursor one past the last column;
	// xterm (and we) keep it on the last column with a flag.
	col = min(col, p.cols-1)
	title := strings.TrimSuffix(p.tmux("display", "-p", "#{pane_title}"), "\n")
	return termState{lines: lines[:p.rows], row: row, col: col, alt: f[2] == "1", visible: f[3] == "1", title: title}
}

// replayTmux replays steps into a fresh tmux pane and returns its state after
// each step.
func replayTmux(t testing.TB, rows, cols int, steps []replayStep) []termState {
	t.Helper()
	p := newTmuxPane(t, rows, cols)
	out := make([]termState, 0, len(steps))
	for _, st := range steps {
		if st.rows > 0 {
			p.Resize(st.rows, st.cols)
		} else {
			p.Write(st.data)
		}
		out = append(out, p.state())
	}
	return out
}

// replayEngine replays steps into a Screen on the given engine and returns
// its state after each step.
func replayEngine(t testing.TB, eng Engine, rows int, steps []replayStep) []termState {
	t.Helper()
	out := make([]termState, 0, len(steps))
	for _, st := range steps {
		if st.rows > 0 {
			eng.Resize(st.rows, st.cols)
			rows = st.rows
		} else {
			eng.Write(st.data)
		}
		s := termState{lines: make([]string, rows)}
		for r := range rows {
			s.lines[r] = eng.Line(r)
		}
		s.row, s.col = eng.Cursor()
		m := eng.Modes()
		s.alt, s.visible, s.title = m.AltScreen, m.CursorVisible, m.Title
		out = append(out, s)
	}
	return out
}

// decGraphics is the DEC Special Graphics set as xterm shows it.
var decGraphics = map[rune]rune{
	'`': '◆', 'a': '▒', 'b': '␉', 'c': '␌', 'd': '␍', 'e': '␊', 'f': '°', 'g': '±',
	'h': '␤', 'i': '␋', 'j': '┘', 'k': '┐', 'l': '┌', 'm': '└', 'n': '┼', 'o': '⎺',
	'p': '⎻', 'q': '─', 'r': '⎼', 's': '⎽', 't': '├', 'u': '┤', 'v': '┴', 'w': '┬',
	'x': '│', 'y': '⩽', 'z': '⩾', '{': 'π', '|': '≠', '}': '£', '~': '·',
}

// plainCapture turns a line of capture-pane -e into its text: escape
// sequences dropped, line-drawing cells (between SO and SI) mapped to
// their characters, trailing spaces trimmed.
func plainCapture(l string) string {
	var b strings.Builder
	acs := false
	rs := []rune(l)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == '[':
			i += 2
			for i < len(rs) && (rs[i] < 0x40 || rs[i] > 0x7e) {
				i++
			}
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == ']':
			// OSC (hyperlinks): up to BEL or ESC \.
			for i += 2; i < len(rs) && rs[i] != 0x07 && rs[i] != 0x1b; i++ {
			}
			if i < len(rs) && rs[i] == 0x1b {
				i++
			}
		case r == 0x0e:
			acs = true
		case r == 0x0f:
			acs = false
		case acs && decGraphics[r] != 0:
			b.WriteRune(decGraphics[r])
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimRight(b.String(), " ")
}
