package fakegemini

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Env names of the Gemini CLI's API-key set-up: the key, and the API base
// the CLI sends its requests to (the fake's URL).
const (
	APIKeyEnv  = "GEMINI_API_KEY"
	BaseURLEnv = "GOOGLE_GEMINI_BASE_URL"
)

// Settings is what the real Gemini CLI reads from $HOME/.gemini (its
// settings.json and trustedFolders.json) when driven against a fake: the
// API-key auth selected (so no sign-in dialog), update checks and usage
// statistics off, and optionally the working directory trusted (so no
// folder-trust dialog and no restart). With GEMINI_API_KEY and
// GOOGLE_GEMINI_BASE_URL=Server.URL in the environment, the CLI then talks
// to the fake only.
type Settings struct {
	// Workdir, when set, is marked trusted in trustedFolders.json;
	// "" trusts nothing, so the CLI opens at its folder-trust dialog.
	Workdir string
	// Model, when set, is model.name; "" leaves the CLI's default.
	Model string
	// Extra is merged into settings.json last (top-level keys replace
	// the defaults'), for a capture that needs another setting.
	Extra map[string]any
}

// Map is the settings.json object.
func (c Settings) Map() map[string]any {
	m := map[string]any{
		"security": map[string]any{
			"auth":        map[string]any{"selectedType": "gemini-api-key"},
			"folderTrust": map[string]any{"enabled": true},
		},
		"general": map[string]any{
			"enableAutoUpdate":             false,
			"enableAutoUpdateNotification": false,
		},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
	}
	if c.Model != "" {
		m["model"] = map[string]any{"name": c.Model}
	}
	for k, v := range c.Extra {
		m[k] = v
	}
	return m
}

// Write writes home/.gemini/settings.json (and trustedFolders.json when
// Workdir is set), creating the directory.
func (c Settings) Write(home string) error {
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fakegemini: %w", err)
	}
	if err := writeJSONFile(filepath.Join(dir, "settings.json"), c.Map()); err != nil {
		return err
	}
	if c.Workdir != "" {
		abs, err := filepath.Abs(c.Workdir)
		if err != nil {
			return fmt.Errorf("fakegemini: %w", err)
		}
		if err := writeJSONFile(filepath.Join(dir, "trustedFolders.json"), map[string]string{abs: "TRUST_FOLDER"}); err != nil {
			return err
		}
	}
	return nil
}

func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("fakegemini: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("fakegemini: %w", err)
	}
	return nil
}
