package vtcore

// Every look at the screen (a wait's, a snapshot's) reads the text of every
// row, and most rows have not changed since the last look: a program
// prints a line and the others only scroll, a TUI redraws a few rows of
// its frame. So the text of each row is kept from one look to the next
// (KeepRowText), and a look takes a row's kept text (KeptRowText) instead
// of reading its cells when the row has not been written since.
//
// "Not written since" is a flag in the row's hidden cell (rowused.go),
// set when the text is kept and cleared by markUsed, raiseUsed, clearRow
// and touched, which every write that changes a row's text goes through
// (the cluster table's sweep renumbers cells without changing their text,
// and leaves the flag). The kept texts are found by the hidden cell's
// address, the row's identity, so they follow their rows when scrolling
// moves row headers. A row of a new size has a new hidden cell; storage
// the scrollback gives back as a blank row (history.swap) has its hidden
// cell written anew, without the flag.
//
// A flagged row is always in the last look's texts: the flag is only set
// by KeepRowText, which records the row at once, and every look keeps all
// its rows. A row that was flagged and is not found (the other screen's,
// after a look while the alternate screen was shown) is read from its
// cells, once.

// textKept, in the hidden cell's Style.Fg, says that the row's text was
// kept and the row has not been written since.
const textKept Color = 1

// keptTexts holds, for each row of the last look, the row's hidden cell and
// its text then.
type keptTexts struct {
	ids   []*Cell
	texts []string
	// shift is where the last row found was kept relative to where it is
	// now: after the screen scrolled by n, every row is found n further
	// down at the first try.
	shift int
}

// hiddenCell returns line's hidden cell, or nil when it has none.
func hiddenCell(line []Cell) *Cell {
	if cap(line) > len(line) {
		if m := &line[:len(line)+1][len(line)]; m.width == usedTag {
			return m
		}
	}
	return nil
}

// KeptRowText returns the text last kept for row (KeepRowText) if the row
// has not been written since: its cells' text with trailing spaces
// trimmed, as AppendRowTextTrimmed reads it.
func (t *Terminal) KeptRowText(row int) (string, bool) {
	if row < 0 || row >= t.rows {
		return "", false
	}
	m := hiddenCell(t.scr.lines[row])
	if m == nil || m.Style.Fg != textKept {
		return "", false
	}
	k := &t.kept
	if j := row + k.shift; j >= 0 && j < len(k.ids) && k.ids[j] == m {
		return k.texts[j], true
	}
	for j, id := range k.ids {
		if id == m {
			k.shift = j - row
			return k.texts[j], true
		}
	}
	return "", false
}

// KeepRowText records text, which must be row's text now as
// AppendRowTextTrimmed reads it, for KeptRowText to return until the row
// is next written. A look calls it for every row, after reading them all:
// the rows kept replace those of the last look.
func (t *Terminal) KeepRowText(row int, text string) {
	if row < 0 || row >= t.rows {
		return
	}
	k := &t.kept
	if len(k.ids) != t.rows {
		k.ids, k.texts = make([]*Cell, t.rows), make([]string, t.rows)
	}
	m := hiddenCell(t.scr.lines[row])
	if m != nil {
		m.Style.Fg = textKept
	}
	k.ids[row], k.texts[row] = m, text
}
