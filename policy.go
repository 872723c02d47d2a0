package ptywright

import (
	"fmt"
	"regexp"
	"strings"
)

// Policy decisions.
const (
	PolicyAllow = "allow"
	PolicyDeny  = "deny"
	PolicyAsk   = "ask"
)

// Policy is an ordered list of rules that decide the permission dialogs a
// handle meets (HandleOptions.Policy; the CLI's --policy FILE, read by
// package policyfile): the first
// rule that matches a dialog decides it. allow answers it with approve,
// deny with deny, both label-checked against the dialog the rule matched
// (its dialog_id); ask, or no rule matching, leaves it for the client.
// Only dialogs a plugin reports in the Dialog shape (metadata.dialog,
// kind "permission") are ever decided: a screen the plugin does not know,
// or a dialog quoted in the transcript, never is.
//
// In TOML:
//
//	[[rule]]
//	id = "allow-heldout"
//	plugin = "claude-code"        # optional glob on the plugin's name
//	tool = "shell"                # optional glob on Dialog.Tool
//	command = "touch heldout_*"   # optional glob on Dialog.Command
//	decision = "allow"
//
// Globs match the whole string: * is any run of characters (/ and spaces
// included), ? any one character. A rule's empty field matches anything;
// a set field does not match a dialog without that field.
type Policy struct {
	Rules []PolicyRule `toml:"rule" json:"rules"`
}

// PolicyRule is one rule of a Policy.
type PolicyRule struct {
	// ID names the rule in events and audit lines; required, unique.
	ID string `toml:"id" json:"id"`
	// Globs on the plugin's name and the dialog's fields.
	Plugin    string `toml:"plugin,omitempty" json:"plugin,omitempty"`
	Tool      string `toml:"tool,omitempty" json:"tool,omitempty"`
	Command   string `toml:"command,omitempty" json:"command,omitempty"`
	Path      string `toml:"path,omitempty" json:"path,omitempty"`
	URL       string `toml:"url,omitempty" json:"url,omitempty"`
	MCPServer string `toml:"mcp_server,omitempty" json:"mcp_server,omitempty"`
	MCPTool   string `toml:"mcp_tool,omitempty" json:"mcp_tool,omitempty"`
	// Decision is allow, deny or ask.
	Decision string `toml:"decision" json:"decision"`
}

// Validate checks every rule: a unique id, a decision of allow, deny or
// ask.
func (p *Policy) Validate() error {
	seen := map[string]bool{}
	for i, r := range p.Rules {
		if r.ID == "" {
			return fmt.Errorf("%w: policy: rule %d: id is required", ErrInvalidParams, i+1)
		}
		if seen[r.ID] {
			return fmt.Errorf("%w: policy: rule %q: id used twice", ErrInvalidParams, r.ID)
		}
		seen[r.ID] = true
		switch r.Decision {
		case PolicyAllow, PolicyDeny, PolicyAsk:
		default:
			return fmt.Errorf("%w: policy: rule %q: decision must be allow, deny or ask, got %q", ErrInvalidParams, r.ID, r.Decision)
		}
	}
	return nil
}

// Decide returns the first rule that matches dialog d of plugin, if any.
// Only permission dialogs are decided.
func (p *Policy) Decide(plugin string, d *Dialog) (PolicyRule, bool) {
	if p == nil || d == nil || d.Kind != "permission" || d.ID == "" {
		return PolicyRule{}, false
	}
	for _, r := range p.Rules {
		if globMatch(r.Plugin, plugin) && globMatch(r.Tool, d.Tool) && globMatch(r.Command, d.Command) &&
			globMatch(r.Path, d.Path) && globMatch(r.URL, d.URL) && globMatch(r.MCPServer, d.MCPServer) &&
			globMatch(r.MCPTool, d.MCPTool) {
			return r, true
		}
	}
	return PolicyRule{}, false
}

// globMatch says whether glob (empty: anything) matches all of s.
func globMatch(glob, s string) bool {
	if glob == "" {
		return true
	}
	if s == "" {
		return false
	}
	var b strings.Builder
	b.WriteString(`\A`)
	for _, r := range glob {
		switch r {
		case '*':
			b.WriteString(`(?s:.*)`)
		case '?':
			b.WriteString(`(?s:.)`)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`\z`)
	return regexp.MustCompile(b.String()).MatchString(s)
}
