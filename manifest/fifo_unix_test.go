//go:build unix

package manifest

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// manifestMkfifo makes a named pipe, the non-regular file the loaders refuse.
func manifestMkfifo(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(path, 0o600))
}
