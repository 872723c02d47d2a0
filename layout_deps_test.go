package ptywright_test

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// listedPackage is what `go list -json` says of one package.
type listedPackage struct {
	ImportPath string
	Imports    []string // direct, non-test
	Deps       []string // transitive, non-test
}

// listPackages runs `go list -json` on the module's packages.
func listPackages(t *testing.T) map[string]listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", "ptywright/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]listedPackage{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

// TestLayoutBoundaries guards the layout doc.go describes, on what each
// package builds with (go list's Deps: everything it reaches, not only
// what it names):
//   - the root reaches neither Lua (the sandbox, go-lua) nor the packages
//     built on it (luahost, plugins, rpc, mcpserver), and leaves TOML to
//     package manifest (it does not import go-toml itself);
//   - the sandbox (internal/luart) reaches the root only through what it is
//     handed: it reaches neither the root nor the plugin registry;
//   - the event bus is a leaf (it parses its own names), and manifests
//     reach nothing of ptywright's but it;
//   - the vocabulary the root hands out (contract, events) does not reach
//     the root, luahost or plugins back;
//   - only luahost imports the sandbox (internal/luart), and only the
//     sandbox and its patterns import go-lua.
func TestLayoutBoundaries(t *testing.T) {
	pkgs := listPackages(t)
	reaches := func(pkg string, banned ...string) {
		p, ok := pkgs[pkg]
		if !ok {
			t.Errorf("%s: not found by go list (moved? update this test)", pkg)
			return
		}
		for _, d := range p.Deps {
			for _, b := range banned {
				if d == b || strings.HasPrefix(b, "prefix:") && strings.HasPrefix(d, strings.TrimPrefix(b, "prefix:")) {
					t.Errorf("%s reaches %s", pkg, d)
				}
			}
		}
	}
	reaches("ptywright", "ptywright/internal/luart", "ptywright/internal/golua",
		"ptywright/luahost", "ptywright/plugins", "ptywright/rpc", "ptywright/mcpserver")
	for _, im := range pkgs["ptywright"].Imports {
		if strings.HasPrefix(im, "github.com/pelletier/go-toml") {
			t.Errorf("the root imports %s: manifests are package manifest's", im)
		}
	}
	reaches("ptywright/internal/luart", "ptywright", "ptywright/plugins")
	reaches("ptywright/events", "prefix:ptywright")
	for _, d := range pkgs["ptywright/manifest"].Deps {
		if strings.HasPrefix(d, "ptywright") && d != "ptywright/events" {
			t.Errorf("ptywright/manifest reaches %s: it reads event names with package events and nothing else of ours", d)
		}
	}
	for _, pkg := range []string{"ptywright/contract", "ptywright/events"} {
		reaches(pkg, "ptywright", "ptywright/luahost", "ptywright/plugins")
	}
	for path, p := range pkgs {
		if slices.Contains(p.Imports, "ptywright/internal/luart") && path != "ptywright/luahost" {
			t.Errorf("%s imports the sandbox: only luahost may", path)
		}
		if slices.Contains(p.Imports, "ptywright/internal/golua") && path != "ptywright/internal/luart" && path != "ptywright/internal/luapattern" {
			t.Errorf("%s imports go-lua: only the sandbox and its patterns may", path)
		}
	}
}
