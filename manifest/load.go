package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxManifestSize bounds how much of a manifest file is read; real
// manifests are a few hundred bytes.
const maxManifestSize = 1 << 20

// Loaded is a validated manifest read from disk, with its
// entrypoint resolved and checked to be a regular file inside Dir.
type Loaded struct {
	Manifest Manifest
	// Path is the absolute path of the manifest file.
	Path string
	// Dir is the directory holding the manifest; the entrypoint is
	// relative to it and may not leave it.
	Dir string
	// EntrypointPath is the entrypoint's absolute path with symlinks
	// resolved.
	EntrypointPath string
}

// LoadFile reads a trusted-local plugin manifest (".toml" or
// ".json"), validates it and resolves its entrypoint, as --plugin and
// plugin.load do. Problems with the manifest are *Error values
// carrying the file's path; a manifest that cannot be read at all is
// reported with the underlying fs error (fs.ErrNotExist and so on).
func LoadFile(path string) (*Loaded, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	var parse func([]byte) (*Manifest, error)
	switch ext := filepath.Ext(abs); strings.ToLower(ext) {
	case ".toml":
		parse = ParseTOML
	case ".json":
		parse = ParseJSON
	default:
		return nil, &Error{Path: abs, Reason: fmt.Sprintf("unsupported manifest file extension %q (want .toml or .json)", ext)}
	}
	data, err := readManifestFile(abs)
	if err != nil {
		return nil, err
	}
	m, err := parse(data)
	if err != nil {
		return nil, WithPath(err, abs)
	}
	dir := filepath.Dir(abs)
	entry, err := ResolveEntrypoint(dir, m.Entrypoint)
	if err != nil {
		return nil, WithPath(err, abs)
	}
	return &Loaded{Manifest: *m, Path: abs, Dir: dir, EntrypointPath: entry}, nil
}

func readManifestFile(path string) ([]byte, error) {
	// Stat before opening: opening a FIFO would block.
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, &Error{Path: path, Reason: "manifest is not a regular file"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	defer f.Close() // Best effort: read-only.
	data, err := io.ReadAll(io.LimitReader(f, maxManifestSize+1))
	if err != nil {
		return nil, fmt.Errorf("manifest: read %s: %w", path, err)
	}
	if len(data) > maxManifestSize {
		return nil, &Error{Path: path, Reason: fmt.Sprintf("manifest is larger than %d bytes", maxManifestSize)}
	}
	return data, nil
}

// WithPath sets the Path of an *Error inside err, if it has none yet, and
// returns err.
func WithPath(err error, path string) error {
	var me *Error
	if errors.As(err, &me) && me.Path == "" {
		me.Path = path
	}
	return err
}

// ResolveEntrypoint turns a manifest's entrypoint into an absolute path,
// refusing anything that could load code from outside manifestDir:
// absolute paths, ".." components, and symlinks (in the entrypoint or its
// parents) that resolve outside the symlink-resolved manifestDir. The
// result has symlinks resolved and names an existing regular file. Escapes
// match ErrPathEscape; a missing file matches fs.ErrNotExist.
func ResolveEntrypoint(manifestDir, entrypoint string) (string, error) {
	if strings.TrimSpace(entrypoint) == "" {
		return "", FieldError("entrypoint", "entrypoint is required")
	}
	if err := CheckEntrypoint(entrypoint); err != nil {
		return "", err
	}
	absDir, err := filepath.Abs(manifestDir)
	if err != nil {
		return "", &Error{Field: "entrypoint", Reason: fmt.Sprintf("manifest directory %q: %v", manifestDir, err), Err: err}
	}
	root, err := filepath.EvalSymlinks(absDir)
	if err != nil {
		return "", &Error{Field: "entrypoint", Reason: fmt.Sprintf("manifest directory %q cannot be resolved: %v", manifestDir, err), Err: err}
	}
	resolved, err := filepath.EvalSymlinks(filepath.Join(root, entrypoint))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", &Error{Field: "entrypoint", Reason: fmt.Sprintf("entrypoint %q does not exist", entrypoint), Err: fs.ErrNotExist}
		}
		return "", &Error{Field: "entrypoint", Reason: fmt.Sprintf("entrypoint %q cannot be resolved: %v", entrypoint, err), Err: err}
	}
	rel, err := filepath.Rel(root, resolved)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &Error{Field: "entrypoint", Reason: fmt.Sprintf("entrypoint %q resolves to %s, outside the manifest directory %s", entrypoint, resolved, root), Err: ErrPathEscape}
	}
	info, err := os.Stat(resolved)
	if err != nil {
		return "", &Error{Field: "entrypoint", Reason: fmt.Sprintf("entrypoint %q: %v", entrypoint, err), Err: err}
	}
	if !info.Mode().IsRegular() {
		return "", FieldError("entrypoint", "entrypoint %q is not a regular file", entrypoint)
	}
	return resolved, nil
}

// ReadSource reads the entrypoint through an os.Root at Dir, so a symlink
// swapped in after LoadFile still cannot make the host read a file
// outside the plugin directory.
func (l *Loaded) ReadSource() ([]byte, error) {
	root, err := os.OpenRoot(l.Dir)
	if err != nil {
		return nil, &Error{Path: l.Path, Field: "entrypoint", Reason: err.Error(), Err: err}
	}
	defer root.Close() // Best effort: read-only.
	name := l.Manifest.Entrypoint
	// Stat before opening (opening a FIFO would block), then check the
	// opened file again in case it was swapped in between.
	info, err := root.Stat(name)
	if err != nil {
		// os.Root's escape error is unexported: let ResolveEntrypoint say
		// what is wrong (escape, missing file) in the usual terms.
		if _, rerr := ResolveEntrypoint(l.Dir, name); rerr != nil {
			return nil, WithPath(rerr, l.Path)
		}
		return nil, &Error{Path: l.Path, Field: "entrypoint", Reason: err.Error(), Err: err}
	}
	if !info.Mode().IsRegular() {
		return nil, &Error{Path: l.Path, Field: "entrypoint", Reason: fmt.Sprintf("entrypoint %q is not a regular file", name)}
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, &Error{Path: l.Path, Field: "entrypoint", Reason: err.Error(), Err: err}
	}
	defer f.Close() // Best effort: read-only.
	if info, err = f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, &Error{Path: l.Path, Field: "entrypoint", Reason: fmt.Sprintf("entrypoint %q changed while it was being opened", name), Err: err}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: read entrypoint: %w", l.Path, err)
	}
	return data, nil
}
