package tuitest

import (
	"os"
	"path/filepath"
	"testing"
)

// WritePlugin writes manifest.toml and main.lua for a third-party adapter
// plugin named name (permissions input.write, matcher.wait, screen.read,
// plus extraManifest) into a fresh directory and returns the manifest's
// path.
func WritePlugin(tb testing.TB, name, extraManifest, src string) string {
	tb.Helper()
	dir := tb.TempDir()
	manifest := "name = \"" + name + "\"\nkind = \"adapter\"\nversion = \"0.1.0\"\nruntime = \"lua\"\nentrypoint = \"main.lua\"\n" +
		"permissions = [\"input.write\", \"matcher.wait\", \"screen.read\"]\n" + extraManifest
	for file, data := range map[string]string{"manifest.toml": manifest, "main.lua": src} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(data), 0o600); err != nil {
			tb.Fatalf("tuitest: %v", err)
		}
	}
	return filepath.Join(dir, "manifest.toml")
}
