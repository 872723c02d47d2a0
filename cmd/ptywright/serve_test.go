package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseServe(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want serveConfig
	}{
		{"defaults: per-user socket, ndjson", nil, serveConfig{Framing: framingNDJSON}},
		{"stdio", []string{"--stdio"}, serveConfig{Stdio: true, Framing: framingNDJSON}},
		{"stdio lsp", []string{"--stdio", "--framing", "lsp"}, serveConfig{Stdio: true, Framing: framingLSP}},
		{"socket", []string{"--socket", "/tmp/pw.sock"}, serveConfig{Socket: "/tmp/pw.sock", Framing: framingNDJSON}},
		{"stdio turned off", []string{"--stdio=false", "--socket", "s"}, serveConfig{Socket: "s", Framing: framingNDJSON}},
		{"named pipe", []string{`--socket=\\.\pipe\ptywright`}, serveConfig{Socket: `\\.\pipe\ptywright`, Framing: framingNDJSON}},
		{
			"plugins in order, plugin load",
			[]string{"--plugin", "a/manifest.toml", "--allow-plugin-load", "-plugin=b/manifest.toml"},
			serveConfig{Framing: framingNDJSON, Plugins: []string{"a/manifest.toml", "b/manifest.toml"}, AllowPluginLoad: true},
		},
		{"x/vt engine", []string{"--stdio", "--engine", "xvt"}, serveConfig{Stdio: true, Framing: framingNDJSON, Engine: "xvt"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, help, err := parseServe(tc.args, io.Discard)
			require.NoError(t, err)
			require.False(t, help)
			require.Equal(t, tc.want, cfg)
		})
	}
}

func TestParseServeErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--stdio", "--socket", "x"}, "serve: --stdio and --socket are mutually exclusive"},
		{[]string{"--socket", "x", "--stdio=true"}, "serve: --stdio and --socket are mutually exclusive"},
		{[]string{"--socket="}, "serve: --socket: path must not be empty"},
		{[]string{"--framing", "LSP"}, `serve: invalid value "LSP" for flag -framing: must be ndjson or lsp`},
		{[]string{"--plugin="}, `serve: invalid value "" for flag -plugin: manifest path must not be empty`},
		{[]string{"--stdio", "now"}, `serve: unexpected argument "now"`},
		{[]string{"--socket"}, "serve: flag needs an argument: -socket"},
		{[]string{"--engine", "xterm"}, `serve: --engine: must be "vtcore" or "xvt", got "xterm"`},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			_, _, err := parseServe(tc.args, io.Discard)
			var ue *usageError
			require.ErrorAs(t, err, &ue)
			require.EqualError(t, err, tc.want)
		})
	}
}
