package svg_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/ptywrighttest"
	"ptywright/svg"
)

type svgDoc struct {
	Width  string       `xml:"width,attr"`
	Height string       `xml:"height,attr"`
	Title  string       `xml:"title"`
	Rects  []svgRect    `xml:"rect"`
	Texts  []svgTextRow `xml:"text"`
}

type svgRect struct {
	Class string `xml:"class,attr"`
	X     string `xml:"x,attr"`
	Y     string `xml:"y,attr"`
	Width string `xml:"width,attr"`
	Fill  string `xml:"fill,attr"`
}

type svgTextRow struct {
	Y     string    `xml:"y,attr"`
	Spans []svgSpan `xml:"tspan"`
}

type svgSpan struct {
	X          string `xml:"x,attr"`
	Fill       string `xml:"fill,attr"`
	Weight     string `xml:"font-weight,attr"`
	Style      string `xml:"font-style,attr"`
	Decoration string `xml:"text-decoration,attr"`
	Opacity    string `xml:"fill-opacity,attr"`
	Text       string `xml:",chardata"`
}

func (r svgTextRow) text() string {
	var b strings.Builder
	for _, s := range r.Spans {
		b.WriteString(s.Text)
	}
	return b.String()
}

// renderSVG renders snap and parses the result, failing on XML that is not
// well-formed.
func renderSVG(t *testing.T, snap ptywright.ScreenSnapshot, opts svg.Options) (svgDoc, string) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, svg.Render(&buf, snap, opts))
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.Strict = true
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "well-formed XML:\n%s", buf.String())
	}
	var doc svgDoc
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc))
	return doc, buf.String()
}

func screenOf(t *testing.T, size ptywright.Size, output string) ptywright.ScreenSnapshot {
	t.Helper()
	s, err := ptywright.NewScreen(size)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	_, err = s.Write([]byte(output))
	require.NoError(t, err)
	return s.Snapshot(true)
}

func TestRenderSVGDrawsTextColoursAndCursor(t *testing.T) {
	snap := screenOf(t, ptywright.Size{Rows: 5, Cols: 20},
		"plain \x1b[1;31mbold red\x1b[0m\r\n"+
			"\x1b[38;5;208;48;2;10;20;30morange\x1b[0m \x1b[3;4mit\x1b[0m \x1b[2mdim\x1b[0m\r\n"+
			"\x1b[7minv\x1b[0m 中文 <a & b>\r\n"+
			"\x1b[5;3H")
	doc, raw := renderSVG(t, snap, svg.Options{Title: "a <title>"})
	require.Equal(t, "a <title>", doc.Title)

	lines := snap.Lines()
	var got []string
	for _, row := range doc.Texts {
		got = append(got, row.text())
	}
	require.Equal(t, []string{lines[0], lines[1], lines[2]}, got, "one text element per non-blank row, holding the row's text")
	require.Equal(t, "plain bold red", got[0])
	require.Equal(t, "inv 中文 <a & b>", got[2])
	require.Contains(t, raw, "&lt;a &amp; b&gt;", "text is escaped")

	spans := map[string]svgSpan{}
	for _, row := range doc.Texts {
		for _, s := range row.Spans {
			spans[strings.TrimSpace(s.Text)] = s
		}
	}
	require.Equal(t, svgSpan{X: spans["bold red"].X, Fill: "#cd0000", Weight: "bold", Text: "bold red"}, spans["bold red"])
	require.Equal(t, "#ff8700", spans["orange"].Fill, "palette colour 208")
	require.Equal(t, "italic", spans["it"].Style)
	require.Equal(t, "underline", spans["it"].Decoration)
	require.Equal(t, "0.5", spans["dim"].Opacity)
	require.Equal(t, "#1e1e1e", spans["inv"].Fill, "inverse: the default background becomes the text colour")

	fills := map[string]bool{}
	var cursor *svgRect
	for i, r := range doc.Rects {
		fills[r.Fill] = true
		if r.Class == "cursor" {
			cursor = &doc.Rects[i]
		}
	}
	require.True(t, fills["#0a141e"], "rgb background")
	require.True(t, fills["#d4d4d4"], "inverse: the default foreground becomes the background")
	require.NotNil(t, cursor, "visible cursor drawn")
	require.Equal(t, "23.8", cursor.X, "cursor at column 2 (7 + 2*8.4)")
	require.Equal(t, "74.2", cursor.Y, "cursor at row 4 (7 + 4*16.8)")

	doc, _ = renderSVG(t, snap, svg.Options{HideCursor: true})
	for _, r := range doc.Rects {
		require.NotEqual(t, "cursor", r.Class)
	}
}

func TestRenderSVGOfAVimScreen(t *testing.T) {
	s := ptywrighttest.Start(t, ptywright.Options{Program: "vim", Args: []string{"-u", "NONE", "-i", "NONE", "-N", "-n"},
		Dir: t.TempDir(), Env: map[string]string{"HOME": t.TempDir()}})
	ptywrighttest.Expect(t, s, ptywright.ScreenRegex(`(?m)^~`))
	ptywrighttest.Send(t, s, ptywright.Text("iSVG <of> vim & more"))
	ptywrighttest.Expect(t, s, ptywright.All(ptywright.ContainsText("-- INSERT --"), ptywright.ScreenStable(100*time.Millisecond)))
	snap := s.Snapshot(ptywright.SnapshotOptions{Cells: true})
	doc, _ := renderSVG(t, snap, svg.Options{})
	var texts []string
	for _, row := range doc.Texts {
		texts = append(texts, row.text())
	}
	var want []string
	for _, l := range snap.Lines() {
		if l != "" {
			want = append(want, l)
		}
	}
	require.Equal(t, want, texts)
	require.Equal(t, "SVG <of> vim & more", texts[0])
	require.Equal(t, "#5c5cff", doc.Texts[1].Spans[0].Fill, "vim's ~ lines are bright blue")
}

func TestRenderSVGNeedsCells(t *testing.T) {
	snap := screenOf(t, ptywright.Size{Rows: 2, Cols: 5}, "x")
	snap.Cells = nil
	err := svg.Render(io.Discard, snap, svg.Options{})
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
	require.ErrorContains(t, err, "cells")
}
