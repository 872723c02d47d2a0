// Package policyfile reads a ptywright.Policy from TOML (the CLI's
// --policy FILE): [[rule]] tables with id, the globs plugin, tool,
// command, path, url, mcp_server and mcp_tool, and decision.
package policyfile

import (
	"bytes"
	"fmt"
	"os"

	"github.com/pelletier/go-toml/v2"

	"ptywright"
)

// Parse reads a policy from TOML and checks it (ptywright.Policy.Validate);
// an unknown key is refused.
func Parse(data []byte) (*ptywright.Policy, error) {
	var p ptywright.Policy
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: policy: %v", ptywright.ErrInvalidParams, err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Load reads the TOML policy at path.
func Load(path string) (*ptywright.Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
