package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"ptywright"
)

type sessionMouseIn struct {
	Session string   `json:"session" jsonschema:"the session id"`
	Kind    string   `json:"kind" jsonschema:"click, double_click, press, release, move, drag, wheel_up or wheel_down"`
	Button  string   `json:"button,omitempty" jsonschema:"left (default), middle, right"`
	Text    string   `json:"text,omitempty" jsonschema:"instead of row/col: where this text is on screen"`
	Regex   string   `json:"regex,omitempty" jsonschema:"instead of row/col: where this regex matches"`
	Row     int      `json:"row,omitempty" jsonschema:"0-based"`
	Col     int      `json:"col,omitempty" jsonschema:"0-based"`
	ToRow   int      `json:"to_row,omitempty" jsonschema:"drag end"`
	ToCol   int      `json:"to_col,omitempty" jsonschema:"drag end"`
	Mods    []string `json:"mods,omitempty" jsonschema:"held: shift, alt, ctrl"`
}

// sessionMouseOut is session_mouse's structured result, kept small: every
// tools/list carries its schema.
type sessionMouseOut struct {
	Sequence uint64 `json:"sequence" jsonschema:"pass to session_wait as after_sequence"`
	Row      int    `json:"row"`
	Col      int    `json:"col"`
}

// addMouseTool registers session_mouse.
func (c *client) addMouseTool(srv *mcp.Server) {
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:  "session_mouse",
		Title: "Use the mouse in a terminal program",
		Description: "Click, double-click, drag, scroll the wheel (or press, release, move) at a cell, or on a text or regex on screen, as xterm reports it. " +
			"Only once the program turned mouse reporting on (vim with set mouse=a, htop, mc): otherwise an error, nothing sent. " +
			"Then session_wait with the returned sequence as after_sequence.",
	}), c.sessionMouse)
}

func (c *client) sessionMouse(ctx context.Context, _ *mcp.CallToolRequest, in sessionMouseIn) (*mcp.CallToolResult, sessionMouseOut, error) {
	m := ptywright.Mouse{Kind: ptywright.MouseKind(in.Kind), Button: ptywright.MouseButton(in.Button), Row: in.Row, Col: in.Col, ToRow: in.ToRow, ToCol: in.ToCol, Text: in.Text, Regex: in.Regex}
	for i, name := range in.Mods {
		switch name {
		case "shift":
			m.Mods |= ptywright.ModShift
		case "alt":
			m.Mods |= ptywright.ModAlt
		case "ctrl":
			m.Mods |= ptywright.ModCtrl
		default:
			return nil, sessionMouseOut{}, fmt.Errorf("mods[%d]: unknown modifier %q (valid: shift, alt, ctrl)", i, name)
		}
	}
	e, err := c.session(in.Session)
	if err != nil {
		return nil, sessionMouseOut{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	res, err := e.sess.Mouse(ctx, m)
	if errors.Is(err, ptywright.ErrMouseNotEnabled) {
		return nil, sessionMouseOut{}, fmt.Errorf("%s: nothing sent: %w (a program asks for mouse reports itself; send keys instead)", e.id, err)
	}
	if err != nil {
		return nil, sessionMouseOut{}, toolError(err)
	}
	out := sessionMouseOut{Sequence: res.Sequence, Row: res.Row, Col: res.Col}
	return textResult(fmt.Sprintf("Mouse %s at row %d col %d of %s (sequence %d: pass it to session_wait as after_sequence).", in.Kind, res.Row, res.Col, e.id, res.Sequence)), out, nil
}
