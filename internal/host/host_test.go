package host

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/manifest"
)

func TestCheckPermissionsNamesTheFirstMissing(t *testing.T) {
	m := &manifest.Manifest{Name: "p", Permissions: []manifest.Permission{manifest.PermissionInputWrite}}
	require.NoError(t, CheckPermissions("adapter.send", m))
	require.NoError(t, CheckPermissions("adapter.list", m), "ungated")
	err := CheckPermissions("adapter.turn", m)
	require.ErrorIs(t, err, ptywright.ErrPermissionDenied)
	var pe *PermissionError
	require.True(t, errors.As(err, &pe))
	require.Equal(t, PermissionError{Method: "adapter.turn", Permission: manifest.PermissionMatcherWait}, *pe)
	require.EqualError(t, err, ptywright.ErrPermissionDenied.Error()+": adapter.turn requires the matcher.wait permission")
}

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	require.NoError(t, CheckDir(""))
	require.NoError(t, CheckDir(dir))
	for _, bad := range []string{file, filepath.Join(dir, "missing")} {
		err := CheckDir(bad)
		require.ErrorIs(t, err, ErrInvalidStart)
		var fe *ptywright.FieldError
		require.True(t, errors.As(err, &fe))
		require.Equal(t, "cwd", fe.Field)
	}
}
