//go:build unix

package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// adapter_send's description says which intents the loaded plugins accept
// and their params, from their describe(): send_prompt takes prompt in the
// plugins shipped, send_text takes text in the echo test plugin.
func TestAdapterSendDescribesTheLoadedIntents(t *testing.T) {
	s := serve(t, Options{Plugins: newPlugins(t, echoManifest, "../plugins/claude-code/manifest.toml", "../plugins/codex/manifest.toml")}, nil)
	res, err := s.cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var desc string
	for _, tool := range res.Tools {
		if tool.Name == "adapter_send" {
			desc = tool.Description
		}
	}
	require.Contains(t, desc, "echo: send_text(text), interrupt")
	require.Contains(t, desc, "claude-code: send_prompt(prompt), approve(dialog_id?, index?, label?), ")
	require.Contains(t, desc, "codex: send_prompt(prompt)")
	require.NotContains(t, desc, `{"text"`)
	raw, err := json.Marshal(res)
	require.NoError(t, err)
	t.Logf("tools/list with the shipped plugins: %d bytes", len(raw))
}
