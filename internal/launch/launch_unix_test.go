//go:build unix

package launch

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.txt"), nil, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))

	got, err := Resolve("./run.sh", dir)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "run.sh"), got, "a relative path is taken from the session's directory")

	got, err = Resolve("sh", dir)
	require.NoError(t, err)
	sh, err := exec.LookPath("sh")
	require.NoError(t, err)
	require.Equal(t, sh, got, "a bare name is looked up in PATH")

	t.Chdir(filepath.Dir(dir))
	got, err = Resolve("../run.sh", filepath.Base(dir)+"/sub")
	require.NoError(t, err, "a relative directory is the caller's, as the child's chdir sees it")
	require.Equal(t, filepath.Join(dir, "run.sh"), got)

	for prog, want := range map[string]error{
		"./missing.sh": fs.ErrNotExist,
		"./data.txt":   fs.ErrPermission,
		"./sub":        syscall.EISDIR,
	} {
		_, err := Resolve(prog, dir)
		var ee *exec.Error
		require.True(t, errors.As(err, &ee), "%s: %v", prog, err)
		require.Equal(t, prog, ee.Name, "the error names the program as written")
		require.ErrorIs(t, err, want, prog)
	}
}
