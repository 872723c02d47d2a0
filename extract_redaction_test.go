//go:build unix

package ptywright_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// TestExtractIsRedacted: an answer holding a secret comes back redacted
// unless the caller asks for raw text explicitly.
func TestExtractIsRedacted(t *testing.T) {
	const secret = "sk-ant-api03-Wq3Er5Ty7Ui9Op1As3Df5Gh7AA" // fits on one row
	h := startLifecycleAdapter(t, lifecycleLua, ptywright.HandleOptions{
		Lifecycle: &ptywright.LifecycleOptions{CompletionStability: 200 * time.Millisecond},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	prompt, err := json.Marshal(map[string]string{"prompt": secret})
	require.NoError(t, err)
	_, err = h.Turn(ctx, "send_prompt", prompt, ptywright.LifecycleWaitIntent, nil)
	require.NoError(t, err)

	sentinels := []string{"<<<A>>>", "<<<E>>>"}
	ans, err := h.Extract(ctx, ptywright.Extraction{Sentinels: sentinels})
	require.NoError(t, err)
	require.Equal(t, "[REDACTED]", ans.Text, "nil means the default policy")

	ans, err = h.Extract(ctx, ptywright.Extraction{Regex: `(sk-ant-\S+)`})
	require.ErrorIs(t, err, ptywright.ErrNoMatch, "the regex searches the redacted dialog")

	ans, err = h.Extract(ctx, ptywright.Extraction{Sentinels: sentinels, Redactor: ptywright.NoRedaction()})
	require.NoError(t, err)
	require.Equal(t, secret, ans.Text, "raw only when asked for")
}
