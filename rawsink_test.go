package ptywright

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOpenRawSinkCreatesOwnerOnlyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raw.log")
	f, _, err := openRawSink(path, false)
	require.NoError(t, err)
	_, err = f.Write([]byte("secret\x1b[0m"))
	require.NoError(t, err)
	require.NoError(t, f.Close())

	st, err := os.Stat(path)
	require.NoError(t, err)
	if runtime.GOOS != "windows" {
		require.Equal(t, fs.FileMode(0o600), st.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "secret\x1b[0m", string(data))
}

func TestOpenRawSinkRefusesToOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raw.log")
	require.NoError(t, os.WriteFile(path, []byte("keep me"), 0o644))

	f, _, err := openRawSink(path, false)
	require.Nil(t, f)
	require.ErrorIs(t, err, ErrFileExists)
	require.ErrorIs(t, err, fs.ErrExist)
	var pe *fs.PathError
	require.True(t, errors.As(err, &pe))
	require.Contains(t, err.Error(), path)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "keep me", string(data), "existing file untouched")
	if runtime.GOOS != "windows" {
		st, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, fs.FileMode(0o644), st.Mode().Perm(), "mode untouched")
	}
}

func TestOpenRawSinkRefusesSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(target, link)) // dangling: target does not exist

	_, _, err := openRawSink(link, false)
	require.ErrorIs(t, err, ErrFileExists)
	_, err = os.Stat(target)
	require.ErrorIs(t, err, fs.ErrNotExist, "nothing created through the link")
}

func TestOpenRawSinkAppend(t *testing.T) {
	dir := t.TempDir()

	t.Run("existing file keeps content and mode", func(t *testing.T) {
		path := filepath.Join(dir, "existing.log")
		require.NoError(t, os.WriteFile(path, []byte("one\n"), 0o640))
		require.NoError(t, os.Chmod(path, 0o640)) // independent of umask
		if runtime.GOOS == "windows" {
			t.Skip("Windows has no Unix permission bits")
		}

		for _, line := range []string{"two\n", "three\n"} {
			f, created, err := openRawSink(path, true)
			require.NoError(t, err)
			require.False(t, created, "appended to, not created: a failed Start must not remove it")
			_, err = f.Write([]byte(line))
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, "one\ntwo\nthree\n", string(data))
		st, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, fs.FileMode(0o640), st.Mode().Perm())
	})

	t.Run("absent file is created owner-only", func(t *testing.T) {
		path := filepath.Join(dir, "new.log")
		f, created, err := openRawSink(path, true)
		require.NoError(t, err)
		require.True(t, created)
		require.NoError(t, f.Close())
		st, err := os.Stat(path)
		require.NoError(t, err)
		if runtime.GOOS != "windows" {
			require.Equal(t, fs.FileMode(0o600), st.Mode().Perm())
		}
	})
}

func TestOpenRawSinkErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		path   string
		append bool
		is     error
	}{
		{"missing directory", filepath.Join(dir, "no", "such", "dir", "raw.log"), false, fs.ErrNotExist},
		{"missing directory append", filepath.Join(dir, "no", "raw.log"), true, fs.ErrNotExist},
		{"path is a directory append", dir, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, err := openRawSink(tt.path, tt.append)
			require.Nil(t, f)
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.path)
			require.NotErrorIs(t, err, ErrFileExists)
			if tt.is != nil {
				require.ErrorIs(t, err, tt.is)
			}
		})
	}

	f, _, err := openRawSink("", false)
	require.Nil(t, f)
	var fe *FieldError
	require.True(t, errors.As(err, &fe))
	require.Equal(t, "raw_transcript_path", fe.Field)
}
