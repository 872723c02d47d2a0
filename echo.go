package ptywright

import (
	"strings"
	"sync"
)

// Echo says where an input's own echo goes on the screen: the typed text a
// shell, a REPL or the terminal's line discipline draws back at the
// cursor. A wait given ExcludeEcho (or AfterInput) does not let its
// contains_text and screen_regex branches match on it, so that
// `echo hi` typed at a prompt is not mistaken for the program's "hi".
//
// The excluded cells are the cursor's row at the send, from its first
// column through the typed text: what the row held left of the cursor
// then (the prompt, and what earlier input put on the line) and the
// cells, from the cursor on, that show the typed text (wrapping onto the
// rows below when it is longer than the row). The row is found again
// after the screen scrolled by its content: the nearest row at or above
// the cursor's row at the send that still holds what was left of the
// cursor, whose cells from the cursor's column show the longest part of
// the typed text. So input typed ahead, before the program drew its
// prompt, is not excluded where the program's line editor draws it again
// after that prompt: wait for the prompt first.
// Only cells that show the typed text are excluded: text the program
// wrote there instead (a redraw, a cleared screen) is not. Input after
// the first control character (the lines after the first of a paste, say)
// is not excluded. The zero Echo excludes nothing.
type Echo struct {
	// Row and Col are the cursor's position (zero-based) when the input
	// was written.
	Row, Col int
	// Text is the input's typed text: its text up to the first control
	// character (a line's end, a tab, an escape), after the typed text of
	// the inputs written before it on the same screen, when theirs was all
	// text. Empty for a key.
	Text string

	before []string // the cells left of the cursor at the send, as cellText reads them
	set    bool     // the zero Echo excludes nothing
	open   bool     // the input was all typed text: the next one on the same screen continues it
}

// ExcludeEcho keeps the wait's contains_text and screen_regex branches
// from matching on e, the echo of an input (Written.Echo): see Echo. The
// other branches read the screen and transcript as they are.
func ExcludeEcho(e Echo) WaitOption {
	return func(c *waitConfig) {
		if e.set {
			c.echo = &e
		}
	}
}

// AfterInput is After(w.Sequence) and ExcludeEcho(w.Echo): the wait sees
// only what came after the input w, and its text branches do not match on
// the input's own echo, only on the program's answer.
func AfterInput(w Written) WaitOption {
	return func(c *waitConfig) {
		After(w.Sequence)(c)
		ExcludeEcho(w.Echo)(c)
	}
}

// LastInput returns what the last input Perform wrote to the program did
// (text, paste, key, interrupt, EOF; not resize, signals or marks), and
// false before any.
func (s *Session) LastInput() (Written, bool) {
	s.inputMu.Lock()
	defer s.inputMu.Unlock()
	return s.lastInput, s.hasInput
}

// InputAt returns the last input written at sequence seq (the Sequence
// of its Written), among the last 16 inputs, and false when none of them
// was: what a wait after that sequence can leave the echo of out.
func (s *Session) InputAt(seq uint64) (Written, bool) {
	s.inputMu.Lock()
	defer s.inputMu.Unlock()
	for i := range s.inputs {
		w := s.inputs[(s.nInputs-1-i+len(s.inputs))%len(s.inputs)]
		if i < s.nInputs && w.Echo.set && w.Sequence == seq {
			return w, true
		}
	}
	return Written{}, false
}

// inputWritten records w as the last input and returns it.
func (s *Session) inputWritten(w Written) Written {
	s.inputMu.Lock()
	defer s.inputMu.Unlock()
	s.lastInput, s.hasInput = w, true
	s.inputs[s.nInputs%len(s.inputs)] = w
	s.nInputs++
	return w
}

// startInput is the Written an input action a begins with: the sequence
// and the echo it may cause, read in one hold of the screen's lock.
func (s *Session) startInput(a Action, b []byte) Written {
	seq, e := s.screen.echoAt()
	typed, open := typedText(a, b)
	e.Text, e.open = typed, open
	s.inputMu.Lock()
	prev := s.lastInput
	s.inputMu.Unlock()
	if prev.Sequence == seq && prev.Echo.set && prev.Echo.open {
		// Nothing reached the screen since the last input, which was all
		// text: this one goes on the same line, after it.
		e.Row, e.Col, e.before = prev.Echo.Row, prev.Echo.Col, prev.Echo.before
		e.Text = prev.Echo.Text + typed
	}
	return Written{Sequence: seq, Echo: e}
}

// typedText is the text an input types before its first control
// character, and whether that is all of it.
func typedText(a Action, b []byte) (string, bool) {
	var text string
	switch a.Type {
	case ActionText, ActionPaste, ActionBracketedPaste:
		text = a.Text
	default:
		return "", len(b) == 0
	}
	for i, r := range text {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return text[:i], false
		}
	}
	return text, a.Type != ActionBracketedPaste
}

// echoAt reads the sequence and, at the cursor, the start of an Echo.
func (s *Screen) echoAt() (uint64, Echo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, col := s.eng.Cursor()
	e := Echo{Row: row, Col: col, set: true, before: make([]string, 0, col)}
	for c := range min(col, s.size.Cols) {
		e.before = append(e.before, s.cellTextLocked(row, c))
	}
	return s.seq, e
}

// cellTextLocked is what a cell shows: " " for a blank, "" for the second
// half of a wide character.
func (s *Screen) cellTextLocked(row, col int) string {
	c := s.eng.Cell(row, col)
	switch {
	case c.Width == 0:
		return ""
	case c.Text == "":
		return " "
	}
	return c.Text
}

// echoSpan is where an echo is on the screen now: cells from the start of
// row on, n of them, row by row.
type echoSpan struct{ row, n int }

// findEchoLocked finds e on the screen now (see Echo).
func (s *Screen) findEchoLocked(e *Echo) []echoSpan {
	rows, cols := s.size.Rows, s.size.Cols
	if len(e.before) > cols {
		return nil
	}
	var spans []echoSpan
	best := -1
	for r := min(e.Row, rows-1); r >= 0; r-- {
		if !s.holdsLocked(r, e.before) {
			continue
		}
		n, all := s.typedCellsLocked(r, len(e.before), e.Text)
		if n > best {
			best = n
			spans = []echoSpan{{row: r, n: len(e.before) + n}}
		}
		if all {
			break // All of it, at the nearest row: a farther one cannot do better.
		}
	}
	return spans
}

// holdsLocked reports whether row starts with the cells before.
func (s *Screen) holdsLocked(row int, before []string) bool {
	for c, want := range before {
		if s.cellTextLocked(row, c) != want {
			return false
		}
	}
	return true
}

// typedCellsLocked counts the cells from row, col on (wrapping to the rows
// below) that show the longest beginning of text, and whether that is all
// of it.
func (s *Screen) typedCellsLocked(row, col int, text string) (int, bool) {
	rows, cols := s.size.Rows, s.size.Cols
	n := 0
	for text != "" {
		if col >= cols {
			row, col = row+1, 0
		}
		if row >= rows {
			break
		}
		t := s.cellTextLocked(row, col)
		if t == "" || t == " " && col == cols-1 && !strings.HasPrefix(text, " ") {
			// The second half of a wide character it showed, or the last
			// column left blank by a wide character that did not fit.
			n, col = n+1, col+1
			continue
		}
		if !strings.HasPrefix(text, t) {
			break
		}
		text = text[len(t):]
		n, col = n+1, col+1
	}
	return n, text == ""
}

// matchTextExcludingLocked is matchTextLocked with the cells of the echo
// e blanked.
func (s *Screen) matchTextExcludingLocked(e *Echo) string {
	text := s.matchTextLocked()
	spans := s.findEchoLocked(e)
	if len(spans) == 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	curRow, curCol := s.eng.Cursor()
	cols := s.size.Cols
	for _, span := range spans {
		for r, left := span.row, span.n; left > 0 && r < s.size.Rows; r++ {
			masked := min(left, cols)
			left -= masked
			for len(lines) <= r {
				lines = append(lines, "")
			}
			if isASCII(lines[r]) {
				// One byte a cell: blank the first bytes of the row's text.
				row := []byte(lines[r])
				for i := range min(masked, len(row)) {
					row[i] = ' '
				}
				end := len(strings.TrimRight(string(row), " "))
				if r == curRow {
					end = max(end, min(curCol, len(row)))
				}
				lines[r] = string(row[:end])
				continue
			}
			cells := make([]string, cols)
			end := 0
			for c := range cols {
				t := s.cellTextLocked(r, c)
				if t != "" && c < masked {
					t = " "
				}
				if t != "" && t != " " {
					end = c + 1
				}
				cells[c] = t
			}
			if r == curRow {
				end = max(end, min(curCol, cols))
			}
			lines[r] = strings.Join(cells[:end], "")
		}
	}
	end := len(lines)
	for end > 0 && lines[end-1] == "" {
		end--
	}
	return strings.Join(lines[:end], "\n")
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// inputState is the Session's record of its last input.
type inputState struct {
	inputMu   sync.Mutex
	lastInput Written
	hasInput  bool
	inputs    [16]Written // the last inputs, for InputAt: nInputs-1 is the last
	nInputs   int
}
