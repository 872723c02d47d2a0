package rpc

import (
	"strconv"
	"unicode/utf8"

	"ptywright"
)

// appendSnapshotJSON appends s as ScreenSnapshot.MarshalJSON encodes it,
// byte for byte (the same members in the same order, an unset title as
// null, no cells as [], strings HTML-escaped as json.Marshal does). A
// session.snapshot with cells is mostly its cells, some 200 bytes each,
// which encoding/json built by reflection, member by member: by hand it
// costs a fraction. TestAppendSnapshotJSONMatchesMarshal holds it to
// MarshalJSON, and fails if a snapshot type gains a field.
func appendSnapshotJSON(dst []byte, s ptywright.ScreenSnapshot) []byte {
	return appendSnapshotJSONWith(dst, s, appendHTMLString)
}

// appendSnapshotJSONWith is appendSnapshotJSON with the snapshot's own
// strings (plain text, scrollback rows, title) appended by str: a wait's
// result encodes them as marshal does, without HTML escaping (wait_json.go).
// Cells' strings are HTML-escaped either way, so a result with cells is not
// marshal's: encodeWaitResult leaves those to marshal.
func appendSnapshotJSONWith(dst []byte, s ptywright.ScreenSnapshot, str func([]byte, string) []byte) []byte {
	dst = append(dst, `{"size":{"rows":`...)
	dst = strconv.AppendInt(dst, int64(s.Size.Rows), 10)
	dst = append(dst, `,"cols":`...)
	dst = strconv.AppendInt(dst, int64(s.Size.Cols), 10)
	dst = append(dst, `,"pixel_width":`...)
	dst = strconv.AppendInt(dst, int64(s.Size.PixelWidth), 10)
	dst = append(dst, `,"pixel_height":`...)
	dst = strconv.AppendInt(dst, int64(s.Size.PixelHeight), 10)
	dst = append(dst, `},"cursor":{"row":`...)
	dst = strconv.AppendInt(dst, int64(s.Cursor.Row), 10)
	dst = append(dst, `,"col":`...)
	dst = strconv.AppendInt(dst, int64(s.Cursor.Col), 10)
	dst = appendBoolMember(dst, `,"visible":`, s.Cursor.Visible)
	dst = append(dst, `},"sequence":`...)
	dst = strconv.AppendUint(dst, s.Sequence, 10)
	if s.Rows != nil {
		dst = append(dst, `,"rows":{"from":`...)
		dst = strconv.AppendInt(dst, int64(s.Rows.From), 10)
		dst = append(dst, `,"to":`...)
		dst = strconv.AppendInt(dst, int64(s.Rows.To), 10)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"plain_text":`...)
	dst = str(dst, s.PlainText)
	dst = appendCellsJSON(dst, s.Cells)
	if s.Runs != nil {
		dst = append(dst, `,"runs":[`...)
		for i := range s.Runs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendRunJSON(dst, &s.Runs[i])
		}
		dst = append(dst, ']')
	}
	if len(s.Scrollback) > 0 {
		dst = append(dst, `,"scrollback":[`...)
		for i, row := range s.Scrollback {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = str(dst, row)
		}
		dst = append(dst, ']')
	}
	dst = appendBoolMember(dst, `,"alternate_screen":`, s.AlternateScreen)
	dst = appendBoolMember(dst, `,"application_cursor":`, s.ApplicationCursor)
	dst = appendBoolMember(dst, `,"application_keypad":`, s.ApplicationKeypad)
	dst = appendBoolMember(dst, `,"bracketed_paste":`, s.BracketedPaste)
	dst = append(dst, `,"title":`...)
	if s.Title == "" {
		dst = append(dst, "null"...)
	} else {
		dst = str(dst, s.Title)
	}
	return append(dst, '}')
}

// snapshotJSON is s encoded as MarshalJSON does, as a result, appended to
// the response as it is built.
func snapshotJSON(s ptywright.ScreenSnapshot) appendedResult {
	// A cell takes some 250 bytes, a run some 220 and its text; what
	// their strings need escaped is room to spare for.
	n := 512 + 2*len(s.PlainText) + 300*len(s.Cells) + 256*len(s.Runs)
	for i := range s.Runs {
		n += len(s.Runs[i].Text) + len(s.Runs[i].Text)/8
	}
	return appendedResult{size: n, append: func(dst []byte) []byte { return appendSnapshotJSON(dst, s) }}
}

// appendCellsJSON appends the cells member, `,"cells":[...]`. A cell is
// mostly its flags and style, some 200 bytes that a screen repeats from
// cell to cell: they are encoded once for a run of cells that share them
// and copied for the others.
func appendCellsJSON(dst []byte, cells []ptywright.Cell) []byte {
	dst = append(dst, `,"cells":[`...)
	var tail []byte // the last cell's members after its text
	var last *ptywright.Cell
	for i := range cells {
		c := &cells[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"row":`...)
		dst = strconv.AppendInt(dst, int64(c.Row), 10)
		dst = append(dst, `,"col":`...)
		dst = strconv.AppendInt(dst, int64(c.Col), 10)
		dst = append(dst, `,"text":`...)
		if t := c.Text; len(t) == 1 && t[0] >= 0x20 && t[0] < utf8.RuneSelf && !htmlOrJSONSpecial(t[0]) {
			dst = append(dst, '"', t[0], '"') // most cells: one plain byte
		} else {
			dst = appendHTMLString(dst, t)
		}
		if last != nil && c.Wide == last.Wide && c.WideContinuation == last.WideContinuation && c.Style == last.Style {
			dst = append(dst, tail...)
			continue
		}
		start := len(dst)
		dst = appendBoolMember(dst, `,"wide":`, c.Wide)
		dst = appendBoolMember(dst, `,"wide_continuation":`, c.WideContinuation)
		dst = appendStyleJSON(dst, &c.Style)
		dst = append(dst, '}')
		tail, last = append(tail[:0], dst[start:]...), c
	}
	return append(dst, ']')
}

// htmlOrJSONSpecial reports whether printable ASCII c is escaped in a JSON
// string encoded with HTML escaping.
func htmlOrJSONSpecial(c byte) bool {
	return c == '"' || c == '\\' || c == '<' || c == '>' || c == '&'
}

func appendRunJSON(dst []byte, r *ptywright.CellRun) []byte {
	dst = append(dst, `{"row":`...)
	dst = strconv.AppendInt(dst, int64(r.Row), 10)
	dst = append(dst, `,"col":`...)
	dst = strconv.AppendInt(dst, int64(r.Col), 10)
	dst = append(dst, `,"text":`...)
	dst = appendHTMLString(dst, r.Text)
	dst = appendStyleJSON(dst, &r.Style)
	if r.Single {
		dst = append(dst, `,"single":true`...)
	}
	if r.Wide {
		dst = append(dst, `,"wide":true`...)
	}
	if r.WideContinuation {
		dst = append(dst, `,"wide_continuation":true`...)
	}
	return append(dst, '}')
}

// appendStyleJSON appends a cell's or a run's style member,
// `,"style":{...}`.
func appendStyleJSON(dst []byte, st *ptywright.CellStyle) []byte {
	dst = append(dst, `,"style":{"foreground":`...)
	dst = appendHTMLString(dst, st.Foreground)
	dst = append(dst, `,"background":`...)
	dst = appendHTMLString(dst, st.Background)
	dst = appendBoolMember(dst, `,"bold":`, st.Bold)
	dst = appendBoolMember(dst, `,"dim":`, st.Dim)
	dst = appendBoolMember(dst, `,"italic":`, st.Italic)
	dst = appendBoolMember(dst, `,"underline":`, st.Underline)
	dst = append(dst, `,"underline_style":`...)
	dst = appendHTMLString(dst, st.UnderlineStyle)
	dst = appendBoolMember(dst, `,"inverse":`, st.Inverse)
	dst = appendBoolMember(dst, `,"strikethrough":`, st.Strikethrough)
	dst = appendBoolMember(dst, `,"blink":`, st.Blink)
	return append(dst, '}')
}

func appendBoolMember(dst []byte, name string, v bool) []byte {
	dst = append(dst, name...)
	if v {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// appendHTMLString appends s as a JSON string as json.Marshal does, with
// HTML escaping on: as appendJSONString does, and '<', '>' and '&' as
// \u003c, \u003e and \u0026.
func appendHTMLString(dst []byte, s string) []byte {
	if !hasHTMLSpecial(s) {
		return appendJSONString(dst, s)
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				dst = append(append(dst, s[start:i]...), `\ufffd`...)
				start = i + size
			case r == '\u2028' || r == '\u2029':
				dst = append(append(dst, s[start:i]...), `\u202`...)
				dst = append(dst, hexDigits[r&0xf])
				start = i + size
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		if c == '<' || c == '>' || c == '&' {
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		} else {
			dst = appendEscapedByte(dst, c)
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// hasHTMLSpecial reports whether s holds '<', '>' or '&'; most strings of a
// snapshot are a few bytes long, for which strings.ContainsAny costs more.
func hasHTMLSpecial(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '<' || c == '>' || c == '&' {
			return true
		}
	}
	return false
}
