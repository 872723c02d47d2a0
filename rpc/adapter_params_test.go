package rpc

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/host"
	"ptywright/manifest"
	"ptywright/plugins"
)

func TestTargetOptions(t *testing.T) {
	t.Setenv("PTYWRIGHT_TEST_SERVER_KEY", "from-server")
	target := &manifest.DefaultTarget{
		Program:     "claude",
		Args:        []string{"--verbose"},
		Rows:        40,
		Cols:        120,
		Env:         map[string]string{"MODE": "default", "KEEP": "1"},
		RequiredEnv: []string{"API_KEY", "PTYWRIGHT_TEST_SERVER_KEY"},
	}
	withTarget := manifest.Manifest{Name: "cc", DefaultTarget: target}
	tests := []struct {
		name     string
		p        startParams
		manifest manifest.Manifest
		want     ptywright.Options
		err      string
	}{
		{
			name:     "default target, caller env over its env",
			p:        startParams{Plugin: "cc", Env: map[string]string{"API_KEY": "k", "MODE": "caller"}, Cwd: "/tmp", RecordPath: "/tmp/x.cast", RecordRaw: true},
			manifest: withTarget,
			want: ptywright.Options{
				Program: "claude", Args: []string{"--verbose"}, Dir: "/tmp",
				Env:        map[string]string{"API_KEY": "k", "MODE": "caller", "KEEP": "1"},
				Size:       ptywright.Size{Rows: 40, Cols: 120},
				RecordPath: "/tmp/x.cast", RecordRaw: true,
			},
		},
		{
			name:     "caller args and size win",
			p:        startParams{Plugin: "cc", Args: []string{}, Rows: 10, PixelWidth: 7, Env: map[string]string{"API_KEY": "k"}},
			manifest: withTarget,
			want: ptywright.Options{
				Program: "claude", Args: []string{},
				Env:  map[string]string{"API_KEY": "k", "MODE": "default", "KEEP": "1"},
				Size: ptywright.Size{Rows: 10, Cols: 120, PixelWidth: 7},
			},
		},
		{
			name:     "explicit program ignores the default target",
			p:        startParams{Plugin: "cc", Program: "/bin/sh", Args: []string{"-c", "cat"}},
			manifest: withTarget,
			want:     ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "cat"}},
		},
		{
			name:     "required env missing, named",
			p:        startParams{Plugin: "cc", Env: map[string]string{"API_KEY": ""}},
			manifest: withTarget,
			err:      `invalid params: env: plugin "cc"'s default_target requires API_KEY to be set`,
		},
		{
			name:     "no program and no default target",
			p:        startParams{Plugin: "bare"},
			manifest: manifest.Manifest{Name: "bare"},
			err:      `invalid params: program: required: plugin "bare" declares no default_target`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := targetOptions(tt.p, tt.manifest)
			if tt.err != "" {
				require.ErrorIs(t, err, ErrInvalidParams)
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
	require.Equal(t, map[string]string{"MODE": "default", "KEEP": "1"}, target.Env, "the manifest's env is not modified")
}

// Every method in the reference's permission table is gated, and only
// those the reference exempts are not.
func TestAdapterPermissionTable(t *testing.T) {
	srv := NewServer(Options{Plugins: &plugins.Registry{}})
	defer srv.Close()
	exempt := map[string]bool{"adapter.list": true, "adapter.live": true, "adapter.cancel_wait": true}
	for name := range srv.adapterMethods() {
		gated := host.Permissions(name) != nil
		require.Equal(t, !exempt[name], gated, name)
	}
	require.Len(t, host.GatedMethods(), len(srv.adapterMethods())-len(exempt))
}
