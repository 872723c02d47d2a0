package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"ptywright"
)

// Escape sequences attach writes to the user's terminal.
const (
	enterAltScreen = "\x1b[?1049h\x1b[H\x1b[2J"
	// leaveAltScreen also undoes what a frame may have set: attributes,
	// a hidden cursor, application cursor keys, bracketed paste.
	leaveAltScreen = "\x1b[0m\x1b[?25h\x1b[?1l\x1b[?2004l\x1b[?1049l"
)

// frame is one full paint of a session's screen on a terminal of size
// term: the rows that fit above the status line, cut to its width, then
// the status line on the terminal's last row, then the cursor.
func frame(snap ptywright.ScreenSnapshot, term ptywright.Size, status string) []byte {
	var b strings.Builder
	// Synchronized output (mode 2026): a terminal that has it shows the
	// frame whole; the others ignore the mode.
	b.WriteString("\x1b[?2026h\x1b[?25l\x1b[0m")
	view := min(snap.Size.Rows, term.Rows-1)
	for r := range max(term.Rows-1, 0) {
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[0m\x1b[K", r+1)
	}
	for _, run := range snap.Runs {
		if run.Row >= view || run.Col >= term.Cols || run.WideContinuation {
			continue
		}
		text := clip(run, term.Cols-run.Col)
		if text == "" {
			continue
		}
		fmt.Fprintf(&b, "\x1b[%d;%dH%s%s", run.Row+1, run.Col+1, sgr(run.Style), text)
	}
	fmt.Fprintf(&b, "\x1b[%d;1H\x1b[0;7m%s\x1b[0m", term.Rows, fit(status, term.Cols))
	// The program's keyboard modes, so the keys typed are the ones it
	// expects.
	if snap.ApplicationCursor {
		b.WriteString("\x1b[?1h")
	} else {
		b.WriteString("\x1b[?1l")
	}
	if snap.BracketedPaste {
		b.WriteString("\x1b[?2004h")
	} else {
		b.WriteString("\x1b[?2004l")
	}
	c := snap.Cursor
	if c.Row < view && c.Col < term.Cols {
		fmt.Fprintf(&b, "\x1b[%d;%dH", c.Row+1, c.Col+1)
		if c.Visible {
			b.WriteString("\x1b[?25h")
		}
	}
	b.WriteString("\x1b[?2026l")
	return []byte(b.String())
}

// clip returns the run's text that fits in cols cells.
func clip(run ptywright.CellRun, cols int) string {
	w := 1
	if run.Wide {
		w = 2
	}
	if run.Single {
		if w > cols {
			return ""
		}
		return run.Text
	}
	if n := utf8.RuneCountInString(run.Text); n*w <= cols {
		return run.Text
	}
	var b strings.Builder
	for _, r := range run.Text {
		if cols < w {
			break
		}
		b.WriteRune(r)
		cols -= w
	}
	return b.String()
}

// fit pads or cuts s to exactly cols columns (status text is ASCII but for
// the ids and program names it quotes).
func fit(s string, cols int) string {
	if cols <= 0 {
		return ""
	}
	rs := []rune(s)
	if len(rs) > cols {
		return string(rs[:cols])
	}
	return s + strings.Repeat(" ", cols-len(rs))
}

// sgr is the SGR sequence that sets style, from a reset.
func sgr(st ptywright.CellStyle) string {
	p := []string{"0"}
	for _, a := range []struct {
		on   bool
		code string
	}{{st.Bold, "1"}, {st.Dim, "2"}, {st.Italic, "3"}, {st.Underline, "4"}, {st.Blink, "5"}, {st.Inverse, "7"}, {st.Strikethrough, "9"}} {
		if a.on {
			p = append(p, a.code)
		}
	}
	p = append(p, colour(st.Foreground, 30, 90, 38)...)
	p = append(p, colour(st.Background, 40, 100, 48)...)
	return "\x1b[" + strings.Join(p, ";") + "m"
}

// colour is the SGR params of a wire colour ("default", "idx:N",
// "rgb:R:G:B"): base+N for the eight basic colours, bright+N-8 for the
// bright ones, ext;5;N or ext;2;R;G;B otherwise.
func colour(c string, base, bright, ext int) []string {
	if v, ok := strings.CutPrefix(c, "idx:"); ok {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil || n < 0 || n > 255:
			return nil
		case n < 8:
			return []string{strconv.Itoa(base + n)}
		case n < 16:
			return []string{strconv.Itoa(bright + n - 8)}
		}
		return []string{strconv.Itoa(ext), "5", v}
	}
	if v, ok := strings.CutPrefix(c, "rgb:"); ok {
		parts := strings.Split(v, ":")
		if len(parts) != 3 {
			return nil
		}
		return append([]string{strconv.Itoa(ext), "2"}, parts...)
	}
	return nil
}

// attachStatus is the status line's text.
func attachStatus(info attachInfo, snap ptywright.ScreenSnapshot, adapterState string, control bool, detach string, skipped int, exited string) string {
	parts := []string{info.Session}
	if info.Program != "" {
		parts = append(parts, info.Program)
	}
	parts = append(parts, fmt.Sprintf("%dx%d", snap.Size.Rows, snap.Size.Cols))
	if info.Adapter != "" {
		a := "adapter " + info.Adapter
		if adapterState != "" {
			a += ": " + adapterState
		}
		parts = append(parts, a)
	}
	if control {
		parts = append(parts, "control")
	} else {
		parts = append(parts, "read-only")
	}
	if exited != "" {
		parts = append(parts, exited)
	}
	switch {
	case skipped == 1:
		parts = append(parts, "1 frame skipped")
	case skipped > 1:
		parts = append(parts, fmt.Sprintf("%d frames skipped", skipped))
	}
	parts = append(parts, detach+" detaches")
	return " " + strings.Join(parts, " | ")
}
