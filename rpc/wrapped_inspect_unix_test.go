//go:build unix

package rpc

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInspectProjectionHidesAWrappedSecret: adapter.inspect hides a secret
// the terminal soft-wrapped on both rows in the screen texts and in every
// text of the projection (normalized_text, dialog_text, head and tail were
// redacted row by row, which returned the second row).
func TestInspectProjectionHidesAWrappedSecret(t *testing.T) {
	secret := "sk-ant-api03-" + redactionBody + "AA" // with "key: ", 96 columns: wraps at 80
	c, a := echoAdapterPrinting(t, "key: "+secret+"\\nend-mark\\n", "end-mark")

	var in struct {
		PlainText  string                     `json:"plain_text"`
		Projection map[string]json.RawMessage `json:"projection"`
	}
	c.do("adapter.inspect", map[string]any{"adapter": a.Adapter}, &in)
	require.Contains(t, in.PlainText, "end-mark")
	requireNoPiece(t, in.PlainText, secret) // the screen: hidden on both rows
	for _, field := range []string{"raw_text", "normalized_text", "dialog_text", "head", "tail"} {
		assert.NotContains(t, string(in.Projection[field]), "4sD6fG8hJ0kL", "adapter.inspect projection.%s shows the wrapped secret's second row: %s", field, in.Projection[field])
	}
}
