package secrets

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTreeValue: member names are redacted like strings, names that
// redact alike keep every value (suffixed in sorted order of the
// originals), and ordinary names and values come out unchanged.
func TestTreeValue(t *testing.T) {
	hide := func(s string) string { return strings.ReplaceAll(s, "SECRET", "[R]") }
	tr := Tree{Text: hide, Key: hide}
	in := map[string]any{
		"a SECRET": "x", "b SECRET": []any{"SECRET", 2}, "a [R]": map[string]string{"SECRET": "v"},
		"plain": []any{"text", "more"},
	}
	for range 20 { // map order must not matter
		require.Equal(t, map[string]any{
			"a [R]":     map[string]string{"[R]": "v"},
			"a [R] (2)": "x",
			"b [R]":     []any{"[R]", 2},
			"plain":     []any{"text", "more"},
		}, tr.Value(in))
	}
}
