package luart

import (
	"go/parser"
	"go/token"
	"path/filepath"
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
// neither the root nor the registry), the root imports neither go-lua nor
// go-toml, and manifests are a leaf importing nothing of ptywright's.
func TestLayoutBoundaries(t *testing.T) {
	for file, list := range imports(t, ".") {
		for _, p := range list {
			if p == "ptywright" || p == "ptywright/plugins" {
				t.Errorf("internal/luart/%s imports %s", file, p)
			}
		}
	}
	for file, list := range imports(t, filepath.Join("..", "..")) {
		for _, p := range list {
			if strings.HasPrefix(p, "github.com/Shopify/go-lua") || strings.HasPrefix(p, "github.com/pelletier/go-toml") {
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
}
