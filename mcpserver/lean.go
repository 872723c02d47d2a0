package mcpserver

import "github.com/modelcontextprotocol/go-sdk/mcp"

// leanOutputSchema is the output schema the tools declare: an object. The
// fields of a tool's structured result are named in its text; a schema
// derived from each result type made tools/list about 32 KB, most of it
// output schemas, which a model pays for in context on every request.
var leanOutputSchema = map[string]any{"type": "object"}

// leanTool gives t the lean output schema unless it has one of its own.
func leanTool(t *mcp.Tool) *mcp.Tool {
	if t.OutputSchema == nil {
		t.OutputSchema = leanOutputSchema
	}
	return t
}
