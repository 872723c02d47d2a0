package policyfile_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/policyfile"
)

// TestPolicyDecides: the first matching rule decides a permission dialog;
// globs match the whole field, * across slashes and spaces; a set field
// does not match a dialog without it; other dialogs are never decided.
func TestPolicyDecides(t *testing.T) {
	p, err := policyfile.Parse([]byte(`
[[rule]]
id = "allow-heldout"
tool = "shell"
command = "touch heldout_*"
decision = "allow"

[[rule]]
id = "deny-rm"
command = "rm *"
decision = "deny"

[[rule]]
id = "ask-mcp"
plugin = "claude-*"
mcp_server = "zoo"
decision = "ask"

[[rule]]
id = "allow-docs"
url = "https://example.com/*"
decision = "allow"
`))
	require.NoError(t, err)
	perm := func(d ptywright.Dialog) *ptywright.Dialog {
		d.Kind, d.ID = "permission", "perm-1"
		return &d
	}
	tests := []struct {
		plugin string
		d      *ptywright.Dialog
		rule   string // "" for none
	}{
		{"codex", perm(ptywright.Dialog{Tool: "shell", Command: "touch heldout_1.txt"}), "allow-heldout"},
		{"codex", perm(ptywright.Dialog{Tool: "shell", Command: "touch heldout_/a b"}), "allow-heldout"},
		{"codex", perm(ptywright.Dialog{Tool: "shell", Command: "touch other && touch heldout_1"}), ""},
		{"codex", perm(ptywright.Dialog{Tool: "edit", Command: "touch heldout_1"}), ""},
		{"claude-code", perm(ptywright.Dialog{Tool: "shell", Command: "rm -rf /"}), "deny-rm"},
		{"claude-code", perm(ptywright.Dialog{Tool: "shell", Command: "echo rm x"}), ""},
		{"claude-code", perm(ptywright.Dialog{Tool: "mcp", MCPServer: "zoo", MCPTool: "Echo"}), "ask-mcp"},
		{"codex", perm(ptywright.Dialog{Tool: "mcp", MCPServer: "zoo"}), ""},
		{"claude-code", perm(ptywright.Dialog{Tool: "web_fetch", URL: "https://example.com/docs/start"}), "allow-docs"},
		{"claude-code", perm(ptywright.Dialog{Tool: "write", Path: "notes.md"}), ""},
		{"claude-code", &ptywright.Dialog{Kind: "question", ID: "q-1", Command: "rm x"}, ""},
		{"claude-code", nil, ""},
	}
	for _, tt := range tests {
		r, ok := p.Decide(tt.plugin, tt.d)
		if tt.rule == "" {
			require.False(t, ok, "%+v decided by %s", tt.d, r.ID)
			continue
		}
		require.True(t, ok, "%+v", tt.d)
		require.Equal(t, tt.rule, r.ID)
	}
	for _, bad := range []string{
		`[[rule]]` + "\n" + `decision = "allow"`,
		`[[rule]]` + "\n" + `id = "a"` + "\n" + `decision = "maybe"`,
		`[[rule]]` + "\n" + `id = "a"` + "\n" + `decision = "allow"` + "\n" + `[[rule]]` + "\n" + `id = "a"` + "\n" + `decision = "deny"`,
		`[[rule]]` + "\n" + `id = "a"` + "\n" + `decision = "allow"` + "\n" + `comand = "x"`,
	} {
		_, err := policyfile.Parse([]byte(bad))
		require.ErrorIs(t, err, ptywright.ErrInvalidParams, bad)
	}
}
