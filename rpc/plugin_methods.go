package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"ptywright/internal/wire"
	"ptywright/manifest"
	"ptywright/plugins"
)

func (s *Server) pluginCapabilities(_ context.Context, _ *conn, raw []byte) (any, error) {
	if err := decodeParams(raw, &struct{}{}); err != nil {
		return nil, err
	}
	return s.opts.Plugins.Capabilities(), nil
}

type validateManifestParams struct {
	Manifest json.RawMessage `json:"manifest" rpc:"required"`
}

// manifestErrorData is the data of an invalid manifest: the offending
// field (wire form, "" for the manifest as a whole) and why.
type manifestErrorData struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// pluginValidateManifest checks a manifest in its JSON form exactly as a
// loaded one is checked (unknown fields are rejected), without the
// filesystem: the entrypoint is not resolved.
func (s *Server) pluginValidateManifest(_ context.Context, _ *conn, raw []byte) (any, error) {
	var p validateManifestParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if kind := wire.Kind(p.Manifest); kind != "an object" {
		return nil, invalidParams("manifest", "must be an object, got %s", kind)
	}
	if _, err := manifest.ParseJSON(p.Manifest); err != nil {
		err = fmt.Errorf("%w: %w", ErrInvalidParams, err)
		var me *manifest.Error
		if errors.As(err, &me) {
			return nil, withData(err, manifestErrorData{Field: me.Field, Reason: me.Reason})
		}
		return nil, err
	}
	return validResult{Valid: true}, nil
}

type pluginParams struct {
	Plugin string `json:"plugin" rpc:"required"`
}

func (s *Server) pluginDescribe(ctx context.Context, _ *conn, raw []byte) (any, error) {
	var p pluginParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	d, err := s.opts.Plugins.Describe(ctx, p.Plugin)
	if err != nil {
		if errors.Is(err, plugins.ErrNotFound) {
			return nil, fmt.Errorf("%w: plugin: %w", ErrInvalidParams, err)
		}
		return nil, err
	}
	return d, nil
}

type loadParams struct {
	ManifestPath string `json:"manifest_path" rpc:"required"`
}

type loadResult struct {
	Plugin string `json:"plugin"`
}

// pluginLoad registers a trusted-local plugin from a manifest file; a
// relative manifest_path is relative to the server's working directory.
// Every failure is the caller's (the file, its manifest or its Lua), so
// all are invalid params.
func (s *Server) pluginLoad(_ context.Context, _ *conn, raw []byte) (any, error) {
	if !s.opts.AllowPluginLoad {
		return nil, pluginLoadDenied("plugin.load")
	}
	var p loadParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.ManifestPath == "" {
		return nil, invalidParams("manifest_path", "must not be empty")
	}
	m, err := s.opts.Plugins.Load(p.ManifestPath)
	if err != nil {
		return nil, fmt.Errorf("%w: manifest_path: %w", ErrInvalidParams, err)
	}
	s.log.Info("plugin loaded", "plugin", m.Name, "manifest", redact(p.ManifestPath))
	return loadResult{Plugin: m.Name}, nil
}

// pluginUnload removes a loaded plugin. Built-ins cannot be unloaded, nor
// can a plugin live adapters run on.
func (s *Server) pluginUnload(_ context.Context, _ *conn, raw []byte) (any, error) {
	if !s.opts.AllowPluginLoad {
		return nil, pluginLoadDenied("plugin.unload")
	}
	var p pluginParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if s.opts.Plugins.IsBuiltin(p.Plugin) {
		return nil, fmt.Errorf("%w: plugin: %w: %q cannot be unloaded", ErrInvalidParams, plugins.ErrBuiltin, p.Plugin)
	}
	err := s.adapters.unloadIfUnused(p.Plugin, func() error { return s.opts.Plugins.Unload(p.Plugin) })
	if err != nil {
		if errors.Is(err, plugins.ErrNotFound) {
			return nil, fmt.Errorf("%w: plugin: %w", ErrInvalidParams, err)
		}
		return nil, err
	}
	s.log.Info("plugin unloaded", "plugin", p.Plugin)
	return unloadedResult{Unloaded: true}, nil
}
