//go:build unix

package rpc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ptywright"
)

// TestExtractHidesAWrappedSecret: adapter.extract hides a secret the
// terminal soft-wrapped in the projected dialog, on both rows, also when
// an answer covers it (it kept the second row, which the sentinel form
// even joined back onto the line). TestAdapterExtractIsRedacted covers a
// secret on one row.
func TestExtractHidesAWrappedSecret(t *testing.T) {
	secret := "sk-ant-api03-" + redactionBody + "AA" // with "key: ", 96 columns: wraps at 80
	c, a := echoAdapterPrinting(t, "BEGIN-ANSWER\\nkey: "+secret+"\\nEND-ANSWER\\n", "END-ANSWER")

	var byRegex, bySentinels ptywright.ExtractResult
	c.do("adapter.extract", map[string]any{"adapter": a.Adapter, "regex": `(?s)BEGIN-ANSWER\n(.*)\nEND-ANSWER`}, &byRegex)
	c.do("adapter.extract", map[string]any{"adapter": a.Adapter, "sentinels": []string{"BEGIN-ANSWER", "END-ANSWER"}}, &bySentinels)
	require.Contains(t, byRegex.Text, "[REDACTED]", "the first row is hidden")
	assert.NotContains(t, byRegex.Text, "4sD6fG8hJ0kL", "adapter.extract (regex) returns the wrapped secret's second row: %q", byRegex.Text)
	assert.NotContains(t, bySentinels.Text, "4sD6fG8hJ0kL", "adapter.extract (sentinels) returns the wrapped secret's second row: %q", bySentinels.Text)
}
