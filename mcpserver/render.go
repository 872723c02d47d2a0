package mcpserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"ptywright"
)

// textResult is a tool result whose text content is what a model reads;
// the structured content is added from the tool's output value.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// errorResult is a failed tool result (isError) whose structured content is
// still added from the tool's output value: a timeout's screen and
// explanation.
func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

// toolError makes a library error fit for the model: redacted, as every
// diagnostic that leaves the process is (an error may quote a command line
// or a screen).
func toolError(err error) error {
	return errors.New(ptywright.DefaultRedactor().Redact(err.Error()))
}

// screenBlock frames the screen text so a model sees where it starts and
// ends, blank rows included.
func screenBlock(text string) string {
	return "--- screen ---\n" + text + "\n--- end of screen ---"
}

func exitWords(x exitInfo) string {
	switch {
	case !x.Exited:
		return ""
	case x.Signal != "":
		return fmt.Sprintf(" (the program was ended by SIG%s)", strings.ToUpper(x.Signal))
	default:
		return fmt.Sprintf(" (the program exited with code %d)", *x.ExitCode)
	}
}

func waitText(id, what string, out sessionWaitOut) string {
	var b strings.Builder
	switch {
	case out.Matched:
		fmt.Fprintf(&b, "Matched %s on %s after %d ms.", what, id, out.ElapsedMs)
	case out.TimedOut:
		fmt.Fprintf(&b, "Not matched: timed out after %d ms waiting for %s on %s.", out.ElapsedMs, what, id)
	default:
		fmt.Fprintf(&b, "Not matched: %s ended after %d ms before %s.", id, out.ElapsedMs, what)
	}
	if out.Capture != "" {
		fmt.Fprintf(&b, " Capture: %q.", out.Capture)
	}
	if out.Exited {
		b.WriteString(exitWords(out.exitInfo)[1:])
	}
	b.WriteString("\n")
	b.WriteString(screenBlock(out.Screen))
	return b.String()
}

func snapshotText(id string, out sessionSnapshotOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s, %dx%d, cursor at row %d col %d", id, out.Cols, out.Rows, out.Cursor.Row, out.Cursor.Col)
	switch r := out.RowRange; {
	case r == nil:
	case r.To > r.From:
		fmt.Fprintf(&b, ", rows %d to %d", r.From, r.To-1)
	default:
		fmt.Fprintf(&b, ", no rows (from_row is past the screen's %d)", out.Rows)
	}
	if out.Title != "" {
		fmt.Fprintf(&b, ", title %q", out.Title)
	}
	if out.AlternateScreen {
		b.WriteString(", full-screen program")
	}
	b.WriteString(exitWords(out.exitInfo))
	b.WriteString(".\n")
	b.WriteString(screenBlock(out.Text))
	return b.String()
}
