//go:build unix

package ptywright

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOpenRawSinkModeIgnoresUmask clears the umask so that only the mode
// openRawSink passes decides the result: under the usual 022 a 0644 file
// could hide a wrong mode, under 077 anything would look owner-only.
func TestOpenRawSinkModeIgnoresUmask(t *testing.T) {
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })

	dir := t.TempDir()
	for _, appendMode := range []bool{false, true} {
		path := filepath.Join(dir, map[bool]string{false: "new.log", true: "append.log"}[appendMode])
		f, _, err := openRawSink(path, appendMode)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		st, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, fs.FileMode(0o600), st.Mode().Perm(), "append=%v", appendMode)
	}
}
