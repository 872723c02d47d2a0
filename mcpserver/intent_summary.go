package mcpserver

import (
	"context"
	"slices"
	"strings"
	"time"

	"ptywright/luahost"
)

// intentSummary says, for adapter_send's description, which intents each
// loaded plugin accepts and their params, from the plugins' own describe():
// "claude-code: send_prompt(prompt), choose_option(option?, text?), ...".
// A required param is bare, an optional one ends in "?". "" when no plugin
// describes an intent.
func (c *client) intentSummary() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var parts []string
	for _, m := range c.plugins().Manifests() {
		d, err := c.plugins().Describe(ctx, m.Name)
		if err != nil || len(d.Intents) == 0 {
			continue
		}
		names := make([]string, 0, len(d.Intents))
		for _, in := range d.Intents {
			names = append(names, in.Name()+paramList(in))
		}
		parts = append(parts, m.Name+": "+strings.Join(names, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return " Intents and their params (optional ones end in ?): " + strings.Join(parts, "; ") + "."
}

// paramList is "(a, b?)" from an entry's params_schema (a JSON schema), or
// its params (a map of names to types, each then bare); "" without params.
func paramList(e luahost.DescribeEntry) string {
	schema, _ := e["params_schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	if schema == nil {
		props, _ = e["params"].(map[string]any)
		for name := range props {
			required[name] = true
		}
	}
	if len(props) == 0 {
		return ""
	}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		// Required params first, then by name.
		if required[a] != required[b] {
			if required[a] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	for i, n := range names {
		if !required[n] {
			names[i] = n + "?"
		}
	}
	return "(" + strings.Join(names, ", ") + ")"
}
