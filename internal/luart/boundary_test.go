package luart

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// imports lists the imports of the non-test Go files in dir.
func imports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			out[filepath.Base(f)] = append(out[filepath.Base(f)], p)
		}
	}
	return out
}

// TestLayoutBoundaries guards the layout doc.go describes: the sandbox
// reaches the root package only through what it is handed (it imports
// neither the root nor the registry), only package luahost imports the
// sandbox, the root imports neither go-lua nor go-toml, manifests are a
// leaf importing nothing of ptywright's, and the vocabulary the root hands
// out (contract, events) does not import the root back.
func TestLayoutBoundaries(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case strings.HasPrefix(d.Name(), ".") && rel != ".", d.Name() == "testdata", rel == filepath.Join("internal", "golua"):
			return filepath.SkipDir
		case rel == "luahost", rel == filepath.Join("internal", "luart"):
			return nil
		}
		for file, list := range imports(t, path) {
			if slices.Contains(list, "ptywright/internal/luart") {
				t.Errorf("%s imports the sandbox: only luahost may", filepath.Join(rel, file))
			}
			if slices.Contains(list, "ptywright/internal/golua") && rel != filepath.Join("internal", "luapattern") {
				t.Errorf("%s imports go-lua: only the sandbox and its patterns may", filepath.Join(rel, file))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for file, list := range imports(t, ".") {
		for _, p := range list {
			if p == "ptywright" || p == "ptywright/plugins" {
				t.Errorf("internal/luart/%s imports %s", file, p)
			}
		}
	}
	for file, list := range imports(t, filepath.Join("..", "..")) {
		for _, p := range list {
			if p == "ptywright/internal/golua" || strings.HasPrefix(p, "github.com/pelletier/go-toml") {
				t.Errorf("root %s imports %s", file, p)
			}
		}
	}
	for file, list := range imports(t, filepath.Join("..", "..", "manifest")) {
		for _, p := range list {
			if p == "ptywright" || strings.HasPrefix(p, "ptywright/") {
				t.Errorf("manifest/%s imports %s", file, p)
			}
		}
	}
	for _, dir := range []string{"contract", "events"} {
		got := imports(t, filepath.Join("..", "..", dir))
		if len(got) == 0 {
			t.Errorf("%s: no Go files (moved? update this test)", dir)
		}
		for file, list := range got {
			for _, p := range list {
				if p == "ptywright" || p == "ptywright/luahost" || p == "ptywright/plugins" {
					t.Errorf("%s/%s imports %s", dir, file, p)
				}
			}
		}
	}
}
