package mcpserver

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"ptywright"
)

// defaultReadChars is how much of the transcript session_read gives when
// chars is not set.
const defaultReadChars = 4000

type sessionResizeIn struct {
	Session string `json:"session" jsonschema:"the session id"`
	Rows    int    `json:"rows" jsonschema:"new height"`
	Cols    int    `json:"cols" jsonschema:"new width"`
}

type sessionReadIn struct {
	Session    string `json:"session" jsonschema:"the session id"`
	Scrollback bool   `json:"scrollback,omitempty" jsonschema:"read the rows that scrolled off the top instead of the output"`
	Chars      int    `json:"chars,omitempty" jsonschema:"how much of the end to read; default 4000 characters of output, or all scrollback rows"`
}

type sessionReadOut struct {
	Text string `json:"text"`
}

type sessionListOut struct {
	Sessions []sessionListed `json:"sessions"`
}

type sessionListed struct {
	Session string `json:"session"`
	Adapter string `json:"adapter,omitempty"`
	Pid     int    `json:"pid"`
	Rows    int    `json:"rows"`
	Cols    int    `json:"cols"`
	exitInfo
}

type resizedOut struct {
	Resized bool `json:"resized"`
}

type noInput struct{}

// addMoreSessionTools registers session_resize, session_read and
// session_list.
func (c *client) addMoreSessionTools(srv *mcp.Server) {
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:        "session_resize",
		Title:       "Resize a terminal",
		Description: "Change a session's terminal size in rows and columns: the program gets SIGWINCH and redraws for the new size.",
	}), c.sessionResize)
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:        "session_read",
		Title:       "Read a terminal's output or scrollback",
		Description: "Read the end of everything a session printed (redacted, control codes stripped), or with scrollback the rows that scrolled off the screen.",
	}), c.sessionRead)
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:        "session_list",
		Title:       "List your terminal sessions",
		Description: "List the sessions you started (and their adapters): id, pid, size, and whether the program exited.",
	}), c.sessionList)
}

func (c *client) sessionResize(_ context.Context, _ *mcp.CallToolRequest, in sessionResizeIn) (*mcp.CallToolResult, resizedOut, error) {
	e, err := c.session(in.Session)
	if err != nil {
		return nil, resizedOut{}, err
	}
	if e.adapter != "" {
		return nil, resizedOut{}, fmt.Errorf("session %s belongs to adapter %s: its plugin drives it", e.id, e.adapter)
	}
	size := ptywright.Size{Rows: in.Rows, Cols: in.Cols}
	if err := size.ValidateCells(c.srv.opts.MaxCells); err != nil {
		return nil, resizedOut{}, err
	}
	if err := e.sess.Resize(size); err != nil {
		return nil, resizedOut{}, toolError(err)
	}
	return textResult(fmt.Sprintf("Resized %s to %dx%d.", e.id, in.Cols, in.Rows)), resizedOut{Resized: true}, nil
}

func (c *client) sessionRead(_ context.Context, _ *mcp.CallToolRequest, in sessionReadIn) (*mcp.CallToolResult, sessionReadOut, error) {
	e, err := c.session(in.Session)
	if err != nil {
		return nil, sessionReadOut{}, err
	}
	if in.Chars < 0 {
		return nil, sessionReadOut{}, fmt.Errorf("chars: must not be negative, got %d", in.Chars)
	}
	var text, what string
	if in.Scrollback {
		// Redacted with the default redactor, as every read is.
		rows := e.sess.Snapshot(ptywright.SnapshotOptions{Scrollback: true}).Scrollback
		text, what = strings.Join(rows, "\n"), fmt.Sprintf("%d scrollback rows", len(rows))
		if in.Chars > 0 {
			text = lastRunes(text, in.Chars)
		}
	} else {
		n := in.Chars
		if n == 0 {
			n = defaultReadChars
		}
		plain := strings.ReplaceAll(ansi.Strip(e.sess.Transcript(nil)), "\r\n", "\n")
		text = lastRunes(plain, n)
		what = "output"
	}
	return textResult(fmt.Sprintf("%s of %s:\n--- %s ---\n%s\n--- end ---", what, e.id, what, text)), sessionReadOut{Text: text}, nil
}

// lastRunes is the last n characters of s.
func lastRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}

func (c *client) sessionList(_ context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, sessionListOut, error) {
	c.mu.Lock()
	entries := make([]*sessionEntry, 0, len(c.sessions))
	for _, e := range c.sessions {
		entries = append(entries, e)
	}
	c.mu.Unlock()
	sort.Slice(entries, func(i, j int) bool { return idLess(entries[i].id, entries[j].id) })
	out := sessionListOut{Sessions: make([]sessionListed, 0, len(entries))}
	var b strings.Builder
	fmt.Fprintf(&b, "%d sessions.", len(entries))
	for _, e := range entries {
		size := e.sess.Size()
		l := sessionListed{Session: e.id, Adapter: e.adapter, Pid: e.sess.Pid(), Rows: size.Rows, Cols: size.Cols, exitInfo: exitOf(e.sess)}
		out.Sessions = append(out.Sessions, l)
		fmt.Fprintf(&b, "\n%s: pid %d, %dx%d", l.Session, l.Pid, l.Cols, l.Rows)
		if l.Adapter != "" {
			fmt.Fprintf(&b, ", adapter %s", l.Adapter)
		}
		if !l.Exited {
			b.WriteString(", running")
		}
		b.WriteString(exitWords(l.exitInfo))
	}
	return textResult(b.String()), out, nil
}

// idLess orders ids as they were given: s2 before s10.
func idLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}
