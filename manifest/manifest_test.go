package manifest

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// validManifest returns a manifest using every optional field.
func validManifest() *Manifest {
	return &Manifest{
		Name:        "echo",
		Kind:        KindAdapter,
		Version:     "0.1.0",
		Runtime:     RuntimeLua,
		Entrypoint:  "main.lua",
		Permissions: AllPermissions(),
		DefaultTarget: &DefaultTarget{
			Program:     "/bin/sh",
			Args:        []string{"-c", "cat"},
			Rows:        24,
			Cols:        80,
			Env:         map[string]string{"LANG": "C"},
			RequiredEnv: []string{"ECHO_TOKEN"},
		},
		Hooks:   []string{"on_start"},
		Intents: []string{"send_prompt", "approve"},
		Events:  &Events{Handles: []string{"session:exited"}, Emits: []string{"echo:echoed"}},
	}
}

// requireManifestError checks err is a *Error for field whose
// reason contains reason.
func requireManifestError(t *testing.T, err error, field, reason string) *Error {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, ErrInvalid)
	var me *Error
	require.ErrorAs(t, err, &me)
	require.Equal(t, field, me.Field, "error: %v", err)
	require.Contains(t, me.Reason, reason)
	return me
}

func TestManifestValidateAcceptsEveryKind(t *testing.T) {
	for _, kind := range []Kind{KindAdapter, KindMacro, KindMatcher} {
		m := validManifest()
		m.Kind = kind
		require.NoError(t, m.Validate(), kind)
	}
	minimal := &Manifest{Name: "m_1-x", Kind: KindMatcher, Version: "1", Runtime: RuntimeLua, Entrypoint: "lib/pred.lua"}
	require.NoError(t, minimal.Validate())
}

func TestManifestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(m *Manifest)
		field  string
		reason string
		is     error // extra sentinel the error must match
	}{
		{"empty name", func(m *Manifest) { m.Name = "" }, "name", "name is required", nil},
		{"uppercase name", func(m *Manifest) { m.Name = "Echo" }, "name", `name "Echo" must start`, nil},
		{"dotted name", func(m *Manifest) { m.Name = "echo.v2" }, "name", "only lowercase letters", nil},
		{"name with colon", func(m *Manifest) { m.Name = "a:b" }, "name", "only lowercase letters", nil},
		{"leading dash", func(m *Manifest) { m.Name = "-echo" }, "name", "must start", nil},
		{"long name", func(m *Manifest) { m.Name = strings.Repeat("a", 65) }, "name", "longer than 64", nil},
		{"core namespace name", func(m *Manifest) { m.Name = "session" }, "name", "reserved for a core event namespace", nil},
		{"empty kind", func(m *Manifest) { m.Kind = "" }, "kind", "kind is required", nil},
		{"unknown kind", func(m *Manifest) { m.Kind = "widget" }, "kind", `unknown kind "widget"`, nil},
		{"empty version", func(m *Manifest) { m.Version = "" }, "version", "version is required", nil},
		{"blank version", func(m *Manifest) { m.Version = "  " }, "version", "version is required", nil},
		{"empty runtime", func(m *Manifest) { m.Runtime = "" }, "runtime", "runtime is required", nil},
		{"unknown runtime", func(m *Manifest) { m.Runtime = "python" }, "runtime", `unknown runtime "python"`, nil},
		{"wasm unavailable", func(m *Manifest) { m.Runtime, m.Entrypoint = RuntimeWASM, "plugin.wasm" }, "runtime", "wasm runtime is not available in this build", errors.ErrUnsupported},
		{"wasm with lua entrypoint", func(m *Manifest) { m.Runtime = RuntimeWASM }, "entrypoint", `the wasm runtime needs a .wasm entrypoint, got "main.lua"`, nil},
		{"lua with wasm entrypoint", func(m *Manifest) { m.Entrypoint = "main.wasm" }, "entrypoint", "the lua runtime needs a .lua entrypoint", nil},
		{"lua with other extension", func(m *Manifest) { m.Entrypoint = "main.py" }, "entrypoint", "needs a .lua entrypoint", nil},
		{"empty entrypoint", func(m *Manifest) { m.Entrypoint = "" }, "entrypoint", "entrypoint is required", nil},
		{"absolute entrypoint", func(m *Manifest) { m.Entrypoint = "/etc/main.lua" }, "entrypoint", "must be relative", ErrPathEscape},
		{"dotdot entrypoint", func(m *Manifest) { m.Entrypoint = "../main.lua" }, "entrypoint", `must not contain ".."`, ErrPathEscape},
		{"inner dotdot entrypoint", func(m *Manifest) { m.Entrypoint = "lib/../main.lua" }, "entrypoint", `must not contain ".."`, ErrPathEscape},
		{"unknown permission", func(m *Manifest) { m.Permissions = []Permission{"screen.read", "input.write", "net.http"} }, "permissions[2]", `unknown permission "net.http"`, nil},
		{"duplicate permission", func(m *Manifest) { m.Permissions = []Permission{"screen.read", "input.write", "screen.read"} }, "permissions[2]", `permission "screen.read" is declared twice (also permissions[0])`, nil},
		{"target without program", func(m *Manifest) { m.DefaultTarget.Program = "" }, "default_target.program", "program is required", nil},
		{"negative rows", func(m *Manifest) { m.DefaultTarget.Rows = -1 }, "default_target.rows", "rows -1 is out of range", nil},
		{"negative cols", func(m *Manifest) { m.DefaultTarget.Cols = -3 }, "default_target.cols", "cols -3 is out of range", nil},
		{"huge rows", func(m *Manifest) { m.DefaultTarget.Rows = 70000 }, "default_target.rows", "out of range 0..65535", nil},
		{"env name with equals", func(m *Manifest) { m.DefaultTarget.Env = map[string]string{"A=B": "x"} }, "default_target.env.A=B", "invalid environment variable name", nil},
		{"empty required env", func(m *Manifest) { m.DefaultTarget.RequiredEnv = []string{"A", ""} }, "default_target.required_env[1]", "invalid environment variable name", nil},
		{"duplicate required env", func(m *Manifest) { m.DefaultTarget.RequiredEnv = []string{"A", "A"} }, "default_target.required_env[1]", "declared twice", nil},
		{"hook not an identifier", func(m *Manifest) { m.Hooks = []string{"on-start"} }, "hooks[0]", `hook name "on-start" must be a Lua identifier`, nil},
		{"hook starting with digit", func(m *Manifest) { m.Hooks = []string{"1st"} }, "hooks[0]", "must be a Lua identifier", nil},
		{"duplicate hook", func(m *Manifest) { m.Hooks = []string{"a", "b", "a"} }, "hooks[2]", `"a" is declared twice (also hooks[0])`, nil},
		{"duplicate intent", func(m *Manifest) { m.Intents = []string{"go", "go"} }, "intents[1]", `"go" is declared twice (also intents[0])`, nil},
		{"intent shadows hook", func(m *Manifest) { m.Hooks, m.Intents = []string{"approve"}, []string{"send", "approve"} }, "intents[1]", `"approve" is declared twice (also hooks[0])`, nil},
		{"empty intent", func(m *Manifest) { m.Intents = []string{""} }, "intents[0]", "must be a Lua identifier", nil},
		{"intent classify", func(m *Manifest) { m.Intents = []string{"send", "classify"} }, "intents[1]", `intent name "classify" is reserved: the host calls it to classify the screen`, nil},
		{"intent describe", func(m *Manifest) { m.Intents = []string{"describe"} }, "intents[0]", `intent name "describe" is reserved`, nil},
		{"intent project", func(m *Manifest) { m.Intents = []string{"project"} }, "intents[0]", `intent name "project" is reserved: the host calls it for the dialog projection`, nil},
		{"intent close", func(m *Manifest) { m.Intents = []string{"close"} }, "intents[0]", `intent name "close" is reserved: it is the plugin's shutdown hook`, nil},
		{"intent matcher", func(m *Manifest) { m.Intents = []string{"wait_turn_matcher"} }, "intents[0]", `intent name "wait_turn_matcher" is reserved: names ending in _matcher are wait matchers`, nil},
		{"hook close", func(m *Manifest) { m.Hooks = []string{"close"} }, "hooks[0]", `hook name "close" is reserved`, nil},
		{"handled event without namespace", func(m *Manifest) { m.Events.Handles = []string{"exited"} }, "events.handles[0]", `"<namespace>:<event>"`, nil},
		{"duplicate handled event", func(m *Manifest) { m.Events.Handles = []string{"session:exited", "session:exited"} }, "events.handles[1]", "declared twice", nil},
		{"emit outside namespace", func(m *Manifest) { m.Events.Emits = []string{"echo:ok", "other:thing"} }, "events.emits[1]", `event "other:thing" is outside the plugin's namespace "echo:"`, nil},
		{"emit session namespace", func(m *Manifest) { m.Events.Emits = []string{"session:exited"} }, "events.emits[0]", `uses the core namespace "session"`, nil},
		{"emit adapter namespace", func(m *Manifest) { m.Events.Emits = []string{"adapter:started"} }, "events.emits[0]", `uses the core namespace "adapter"`, nil},
		{"emit empty event", func(m *Manifest) { m.Events.Emits = []string{"echo:"} }, "events.emits[0]", `must be "echo:<event>"`, nil},
		{"emit duplicate", func(m *Manifest) { m.Events.Emits = []string{"echo:a", "echo:a"} }, "events.emits[1]", "declared twice", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := validManifest()
			tt.mutate(m)
			err := m.Validate()
			me := requireManifestError(t, err, tt.field, tt.reason)
			require.Zero(t, me.Line, "Validate knows no lines")
			if tt.is != nil {
				require.ErrorIs(t, err, tt.is)
			} else {
				require.NotErrorIs(t, err, ErrPathEscape)
			}
		})
	}
}

func TestParseManifestTOML(t *testing.T) {
	data, err := os.ReadFile("../testdata/plugins/echo/manifest.toml")
	require.NoError(t, err)
	m, err := ParseTOML(data)
	require.NoError(t, err)
	require.Equal(t, &Manifest{
		Name:          "echo",
		Kind:          KindAdapter,
		Version:       "0.1.0",
		Runtime:       RuntimeLua,
		Entrypoint:    "main.lua",
		Permissions:   AllPermissions(),
		DefaultTarget: &DefaultTarget{Program: "/bin/sh", Args: []string{"-c", "cat"}},
	}, m)

	// Every field, with inline tables and dotted keys.
	full := `name = "echo"
kind = "adapter"
version = "0.1.0"
runtime = "lua"
entrypoint = "main.lua"
permissions = ["session.spawn", "session.kill", "session.resize", "screen.read", "transcript.read", "input.write", "matcher.wait"]
hooks = ["on_start"]
intents = ["send_prompt", "approve"]
events = { handles = ["session:exited"], emits = ["echo:echoed"] }

[default_target]
program = "/bin/sh"
args = ["-c", "cat"]
rows = 24
cols = 80
env.LANG = "C"
required_env = ["ECHO_TOKEN"]
`
	m, err = ParseTOML([]byte(full))
	require.NoError(t, err)
	require.Equal(t, validManifest(), m)
}

func TestParseManifestTOMLErrors(t *testing.T) {
	const head = "name = \"echo\"\nkind = \"adapter\"\nversion = \"0.1.0\"\nruntime = \"lua\"\nentrypoint = \"main.lua\"\n" // lines 1-5
	tests := []struct {
		name   string
		doc    string
		field  string
		line   int
		reason string
	}{
		{"unknown top-level field", head + "permissions = []\nbogus = 3\n", "bogus", 7, "unknown field"},
		{"several unknown fields", head + "zz = 1\n[default_target]\nprogram = \"x\"\nfoo = 1\n", "zz", 6, "unknown field (and 1 more)"},
		{"unknown field in table", head + "[default_target]\nprogram = \"sh\"\nprogramme = \"sh\"\n", "default_target.programme", 8, "unknown field"},
		{"unknown field in inline table", head + "default_target = { program = \"sh\", rowz = 3 }\n", "default_target.rowz", 6, "unknown field"},
		{"unknown table", head + "[target]\nprogram = \"sh\"\n", "target", 6, "unknown field"},
		{"wrong case key", head + "Permissions = []\n", "Permissions", 6, `did you mean "permissions"?`},
		{"wrong case nested key", head + "[default_target]\nProgram = \"sh\"\n", "default_target.Program", 7, `did you mean "program"?`},
		{"name not a string", "name = 1\n", "name", 1, "wrong type: want string, got integer"},
		{"permissions not an array", head + "permissions = \"screen.read\"\n", "permissions", 6, "wrong type: want array of strings, got string"},
		{"permission not a string", head + "permissions = [\"screen.read\", 2]\n", "permissions[1]", 6, "wrong type: want string, got integer"},
		{"rows not an integer", head + "[default_target]\nprogram = \"sh\"\nrows = \"24\"\n", "default_target.rows", 8, "wrong type: want integer, got string"},
		{"env value not a string", head + "[default_target]\nprogram = \"sh\"\nenv = { A = 1 }\n", "default_target.env.A", 8, "wrong type: want string, got integer"},
		{"inline table member wrong type", head + "default_target = { program = \"sh\", cols = \"80\" }\n", "default_target.cols", 6, "wrong type: want integer, got string"},
		{"dotted key wrong type", head + "default_target.program = [\"sh\"]\n", "default_target.program", 6, "wrong type: want string, got array"},
		{"env not a table", head + "[default_target]\nprogram = \"sh\"\nenv = \"A=1\"\n", "default_target.env", 8, "wrong type: want table of strings, got string"},
		{"table header on a list", head + "[hooks]\n", "hooks", 6, "wrong type: want array of strings, got table"},
		{"table header on a defined key", head + "[version]\n", "version", 6, "should be a table, not a value"},
		{"element on a later line", head + "hooks = [\n  \"a\",\n  3,\n]\n", "hooks[1]", 8, "wrong type: want string, got integer"},
		{"default_target not a table", head + "default_target = 3\n", "default_target", 6, "wrong type: want table, got integer"},
		{"duplicate key", head + "name = \"again\"\n", "name", 6, "already defined"},
		{"syntax error", head + "permissions = [\n", "", 6, "array is incomplete"},
		{"bad value", head + "permissions = [\"a\"]\nhooks = \n", "", 7, "unexpected character"},
		{"validation: unknown permission", head + "permissions = [\n  \"screen.read\",\n  \"net.http\",\n]\n", "permissions[1]", 8, `unknown permission "net.http"`},
		{"validation: negative rows", head + "[default_target]\nprogram = \"sh\"\n\nrows = -2\n", "default_target.rows", 9, "rows -2 is out of range"},
		{"validation: missing program points at table", head + "\n[default_target]\nargs = []\n", "default_target.program", 7, "program is required"},
		{"validation: emitted event", head + "[events]\nemits = [\"echo:ok\",\n  \"session:exited\"]\n", "events.emits[1]", 8, "core namespace"},
		{"validation: field absent has no line", "kind = \"adapter\"\n", "name", 0, "name is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseTOML([]byte(tt.doc))
			require.Nil(t, m)
			me := requireManifestError(t, err, tt.field, tt.reason)
			require.Equal(t, tt.line, me.Line, "error: %v", err)
		})
	}
}

func TestParseManifestJSON(t *testing.T) {
	doc := `{
  "name": "echo",
  "kind": "adapter",
  "version": "0.1.0",
  "runtime": "lua",
  "entrypoint": "main.lua",
  "permissions": ["session.spawn", "session.kill", "session.resize", "screen.read", "transcript.read", "input.write", "matcher.wait"],
  "default_target": {"program": "/bin/sh", "args": ["-c", "cat"], "rows": 24, "cols": 80, "env": {"LANG": "C"}, "required_env": ["ECHO_TOKEN"]},
  "hooks": ["on_start"],
  "intents": ["send_prompt", "approve"],
  "events": {"handles": ["session:exited"], "emits": ["echo:echoed"]}
}`
	m, err := ParseJSON([]byte(doc))
	require.NoError(t, err)
	require.Equal(t, validManifest(), m)
}

func TestParseManifestJSONErrors(t *testing.T) {
	const head = "{\"name\": \"echo\",\n\"kind\": \"adapter\",\n\"version\": \"0.1.0\",\n\"runtime\": \"lua\",\n\"entrypoint\": \"main.lua\"" // lines 1-5
	tests := []struct {
		name   string
		doc    string
		field  string
		line   int
		reason string
	}{
		{"unknown field", head + ",\n\"permissions\": [],\n\"bogus\": 3}", "bogus", 7, "unknown field"},
		{"unknown nested field", head + ",\n\"default_target\": {\n\"program\": \"sh\",\n\"rowz\": 3}}", "default_target.rowz", 8, "unknown field"},
		{"wrong case key", head + ",\n\"Hooks\": []}", "Hooks", 6, `did you mean "hooks"?`},
		{"duplicate key", head + ",\n\"name\": \"other\"}", "name", 6, "duplicate field"},
		{"duplicate env key", head + ",\n\"default_target\": {\"program\": \"sh\", \"env\": {\"A\": \"1\",\n\"A\": \"2\"}}}", "default_target.env.A", 7, "duplicate field"},
		{"name not a string", "{\n\"name\": 1}", "name", 2, "wrong type: want string, got number"},
		{"permission not a string", head + ",\n\"permissions\": [\"screen.read\", true]}", "permissions[1]", 6, "wrong type: want string, got bool"},
		{"rows not an integer", head + ",\n\"default_target\": {\"program\": \"sh\",\n\"rows\": 1.5}}", "default_target.rows", 7, "wrong type: want integer, got number 1.5"},
		{"env value not a string", head + ",\n\"default_target\": {\"program\": \"sh\", \"env\": {\"A\": 1}}}", "default_target.env.A", 6, "wrong type: want string, got number"},
		{"object where a string goes", "{\"kind\": \"adapter\",\n\"name\": {\"first\": [1, {\"x\": 2}]}}", "name", 2, "wrong type: want string, got object"},
		{"object in a string list", head + ",\n\"permissions\": [{\"name\": \"screen.read\"}]}", "permissions[0]", 6, "wrong type: want string, got object"},
		{"object as env value", head + ",\n\"default_target\": {\"program\": \"sh\", \"env\": {\"A\": {}}}}", "default_target.env.A", 6, "wrong type: want string, got object"},
		{"env not an object", head + ",\n\"default_target\": {\"program\": \"sh\", \"env\": [\"A=1\"]}}", "default_target.env", 6, "wrong type: want object of strings, got array"},
		{"element on a later line", head + ",\n\"hooks\": [\n\"a\",\n7]}", "hooks[1]", 8, "wrong type: want string, got number"},
		{"events not an object", head + ",\n\"events\": []}", "events", 6, "wrong type: want object, got array"},
		{"array document", "[\n]", "", 1, "manifest must be a JSON object"},
		{"null document", "null", "", 1, "manifest must be a JSON object"},
		{"trailing data", head + "}\n{}", "", 6, "unexpected data after the manifest object"},
		{"syntax error", head + ",\n\"hooks\": [,]}", "", 6, "invalid JSON"},
		{"truncated", head + ",\n\"hooks\": [", "", 6, "unexpected end of input"},
		{"empty document", "", "", 1, "unexpected end of input"},
		{"validation: unknown permission", head + ",\n\"permissions\": [\n\"screen.read\",\n\"input.write\",\n\"net.http\"\n]}", "permissions[2]", 9, `unknown permission "net.http"`},
		{"validation: emitted event", head + ",\n\"events\": {\n\"emits\": [\"other:x\"]}}", "events.emits[0]", 7, "outside the plugin's namespace"},
		{"validation: missing program points at table", head + ",\n\"default_target\": {\"args\": []}}", "default_target.program", 6, "program is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseJSON([]byte(tt.doc))
			require.Nil(t, m)
			me := requireManifestError(t, err, tt.field, tt.reason)
			require.Equal(t, tt.line, me.Line, "error: %v", err)
		})
	}
}

func TestManifestErrorMessage(t *testing.T) {
	doc := `name = "echo"
kind = "adapter"
version = "0.1.0"
runtime = "lua"
entrypoint = "main.lua"
permissions = ["screen.read", "input.write",
  "net.http"]
`
	_, err := ParseTOML([]byte(doc))
	require.EqualError(t, err, `manifest: field "permissions[2]": unknown permission "net.http" (line 7)`)

	require.EqualError(t, &Error{Path: "/p/manifest.toml", Field: "name", Reason: "name is required"},
		`manifest /p/manifest.toml: field "name": name is required`)
	require.EqualError(t, &Error{Line: 3, Reason: "invalid JSON: x"}, `manifest: invalid JSON: x (line 3)`)

	wrapped := errors.Join(errors.New("context"), &Error{Reason: "r", Err: ErrPathEscape})
	require.ErrorIs(t, wrapped, ErrInvalid)
	require.ErrorIs(t, wrapped, ErrPathEscape)
	require.NotErrorIs(t, errors.New("other"), ErrInvalid)
}

// entrypointDir builds a plugin directory with a real entrypoint, a
// subdirectory, and a file outside it, returning (dir, outside dir).
func entrypointDir(t *testing.T) (string, string) {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "plugin")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{dir, outside, filepath.Join(dir, "lib"), filepath.Join(dir, "dir.lua")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	for _, f := range []string{filepath.Join(dir, "main.lua"), filepath.Join(dir, "lib", "util.lua"), filepath.Join(outside, "evil.lua")} {
		require.NoError(t, os.WriteFile(f, []byte("local M = {} return M\n"), 0o644))
	}
	links := map[string]string{
		filepath.Join(dir, "inside.lua"):   "lib/util.lua",
		filepath.Join(dir, "escape.lua"):   filepath.Join(outside, "evil.lua"),
		filepath.Join(dir, "rel-esc.lua"):  "../outside/evil.lua",
		filepath.Join(dir, "extlib"):       outside,
		filepath.Join(dir, "dangling.lua"): filepath.Join(outside, "nope.lua"),
		filepath.Join(base, "linked"):      dir,
	}
	for link, target := range links {
		require.NoError(t, os.Symlink(target, link))
	}
	return dir, outside
}

func TestResolveEntrypoint(t *testing.T) {
	dir, _ := entrypointDir(t)
	realDir, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	linkedDir := filepath.Join(filepath.Dir(dir), "linked")

	tests := []struct {
		name       string
		dir        string
		entrypoint string
		want       string // resolved path relative to realDir, when ok
		reason     string // when failing
		is         error
	}{
		{"plain file", dir, "main.lua", "main.lua", "", nil},
		{"dot prefix", dir, "./main.lua", "main.lua", "", nil},
		{"subdirectory", dir, "lib/util.lua", "lib/util.lua", "", nil},
		{"symlink inside", dir, "inside.lua", "lib/util.lua", "", nil},
		{"manifest dir reached through a symlink", linkedDir, "main.lua", "main.lua", "", nil},
		{"relative manifest dir", manifestRelPath(t, dir), "main.lua", "main.lua", "", nil},
		{"empty", dir, "", "", "entrypoint is required", nil},
		{"absolute", dir, filepath.Join(dir, "main.lua"), "", "must be relative", ErrPathEscape},
		{"dotdot", dir, "../outside/evil.lua", "", `must not contain ".."`, ErrPathEscape},
		{"dotdot that stays inside", dir, "lib/../main.lua", "", `must not contain ".."`, ErrPathEscape},
		{"absolute symlink escape", dir, "escape.lua", "", "outside the manifest directory", ErrPathEscape},
		{"relative symlink escape", dir, "rel-esc.lua", "", "outside the manifest directory", ErrPathEscape},
		{"symlinked directory escape", dir, "extlib/evil.lua", "", "outside the manifest directory", ErrPathEscape},
		{"missing", dir, "nope.lua", "", "does not exist", fs.ErrNotExist},
		{"dangling symlink", dir, "dangling.lua", "", "does not exist", fs.ErrNotExist},
		{"directory", dir, "dir.lua", "", "is not a regular file", nil},
		{"file used as a directory", dir, "main.lua/x.lua", "", "cannot be resolved", nil},
		{"missing manifest dir", filepath.Join(dir, "nowhere"), "main.lua", "", "cannot be resolved", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveEntrypoint(tt.dir, tt.entrypoint)
			if tt.reason == "" {
				require.NoError(t, err)
				require.Equal(t, filepath.Join(realDir, tt.want), got)
				return
			}
			require.Empty(t, got)
			requireManifestError(t, err, "entrypoint", tt.reason)
			if tt.is != nil {
				require.ErrorIs(t, err, tt.is)
			} else {
				require.NotErrorIs(t, err, ErrPathEscape)
			}
		})
	}
}

func manifestRelPath(t *testing.T, path string) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	rel, err := filepath.Rel(wd, path)
	require.NoError(t, err)
	return rel
}

func TestLoadManifestFile(t *testing.T) {
	t.Run("echo", func(t *testing.T) {
		l, err := LoadFile("../testdata/plugins/echo/manifest.toml")
		require.NoError(t, err)
		wantDir, err := filepath.Abs("../testdata/plugins/echo")
		require.NoError(t, err)
		require.Equal(t, filepath.Join(wantDir, "manifest.toml"), l.Path)
		require.Equal(t, wantDir, l.Dir)
		realDir, err := filepath.EvalSymlinks(wantDir)
		require.NoError(t, err)
		require.Equal(t, filepath.Join(realDir, "main.lua"), l.EntrypointPath)
		require.Equal(t, "echo", l.Manifest.Name)
		src, err := l.ReadSource()
		require.NoError(t, err)
		want, err := os.ReadFile("../testdata/plugins/echo/main.lua")
		require.NoError(t, err)
		require.Equal(t, string(want), string(src))
	})

	dir, _ := entrypointDir(t)
	write := func(t *testing.T, name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}

	t.Run("json", func(t *testing.T) {
		p := write(t, "manifest.json", `{"name": "j", "kind": "macro", "version": "2", "runtime": "lua", "entrypoint": "lib/util.lua", "permissions": ["input.write"]}`)
		l, err := LoadFile(p)
		require.NoError(t, err)
		require.Equal(t, KindMacro, l.Manifest.Kind)
		require.True(t, l.Manifest.HasPermission(PermissionInputWrite))
		require.Equal(t, "lib/util.lua", strings.TrimPrefix(l.EntrypointPath, manifestEvalSymlinks(t, dir)+"/"))
	})
	t.Run("upper-case extension", func(t *testing.T) {
		p := write(t, "MANIFEST.TOML", "name = \"u\"\nkind = \"adapter\"\nversion = \"1\"\nruntime = \"lua\"\nentrypoint = \"main.lua\"\n")
		_, err := LoadFile(p)
		require.NoError(t, err)
	})
	t.Run("invalid manifest names the file", func(t *testing.T) {
		p := write(t, "bad.toml", "name = \"bad\"\nkind = \"adapter\"\nversion = \"1\"\nruntime = \"lua\"\nentrypoint = \"main.lua\"\npermissions = [\"net.http\"]\n")
		_, err := LoadFile(p)
		me := requireManifestError(t, err, "permissions[0]", "unknown permission")
		require.Equal(t, p, me.Path)
		require.Equal(t, 6, me.Line)
		require.Contains(t, err.Error(), "manifest "+p+": ")
	})
	t.Run("symlink escape", func(t *testing.T) {
		p := write(t, "esc.toml", "name = \"esc\"\nkind = \"adapter\"\nversion = \"1\"\nruntime = \"lua\"\nentrypoint = \"escape.lua\"\n")
		_, err := LoadFile(p)
		me := requireManifestError(t, err, "entrypoint", "outside the manifest directory")
		require.ErrorIs(t, err, ErrPathEscape)
		require.Equal(t, p, me.Path)
	})
	t.Run("unsupported extension", func(t *testing.T) {
		p := write(t, "manifest.yaml", "name: x\n")
		_, err := LoadFile(p)
		requireManifestError(t, err, "", `unsupported manifest file extension ".yaml"`)
	})
	t.Run("missing file is an fs error", func(t *testing.T) {
		_, err := LoadFile(filepath.Join(dir, "absent.toml"))
		require.ErrorIs(t, err, fs.ErrNotExist)
		require.NotErrorIs(t, err, ErrInvalid)
	})
	t.Run("not a regular file", func(t *testing.T) {
		p := filepath.Join(dir, "fifo.toml")
		manifestMkfifo(t, p)
		_, err := LoadFile(p)
		requireManifestError(t, err, "", "not a regular file")
	})
	t.Run("too large", func(t *testing.T) {
		p := write(t, "big.toml", "# "+strings.Repeat("x", maxManifestSize)+"\n")
		_, err := LoadFile(p)
		requireManifestError(t, err, "", "larger than")
	})
}

func manifestEvalSymlinks(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	require.NoError(t, err)
	return r
}

func TestLoadedManifestReadSourceRefusesLateEscape(t *testing.T) {
	dir, outside := entrypointDir(t)
	p := filepath.Join(dir, "manifest.toml")
	require.NoError(t, os.WriteFile(p, []byte("name = \"late\"\nkind = \"adapter\"\nversion = \"1\"\nruntime = \"lua\"\nentrypoint = \"swap.lua\"\n"), 0o644))
	swap := filepath.Join(dir, "swap.lua")
	require.NoError(t, os.WriteFile(swap, []byte("return {}\n"), 0o644))
	l, err := LoadFile(p)
	require.NoError(t, err)

	// Swap the checked file for a symlink out of the directory.
	require.NoError(t, os.Remove(swap))
	require.NoError(t, os.Symlink(filepath.Join(outside, "evil.lua"), swap))
	src, err := l.ReadSource()
	require.Nil(t, src)
	requireManifestError(t, err, "entrypoint", "outside the manifest directory")
	require.ErrorIs(t, err, ErrPathEscape)

	require.NoError(t, os.Remove(swap))
	_, err = l.ReadSource()
	require.ErrorIs(t, err, fs.ErrNotExist)

	require.NoError(t, os.Mkdir(swap, 0o755))
	_, err = l.ReadSource()
	requireManifestError(t, err, "entrypoint", "is not a regular file")
	require.NoError(t, os.Remove(swap))

	manifestMkfifo(t, swap)
	_, err = l.ReadSource()
	requireManifestError(t, err, "entrypoint", "is not a regular file")

	require.NoError(t, os.Symlink(dir, filepath.Join(filepath.Dir(dir), "gone")))
	l.Dir = filepath.Join(filepath.Dir(dir), "gone", "missing")
	_, err = l.ReadSource()
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.ErrorIs(t, err, ErrInvalid)
}

func TestPluginManifestJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		m    *Manifest
		want string // exact wire form, when set
	}{
		{"full", validManifest(), ""},
		{
			"minimal omits optional fields",
			&Manifest{Name: "m", Kind: KindMatcher, Version: "1", Runtime: RuntimeLua, Entrypoint: "m.lua", Permissions: []Permission{PermissionScreenRead}},
			`{"name":"m","kind":"matcher","version":"1","runtime":"lua","entrypoint":"m.lua","permissions":["screen.read"]}`,
		},
		{
			"bare target",
			&Manifest{Name: "t", Kind: KindAdapter, Version: "1", Runtime: RuntimeLua, Entrypoint: "t.lua", Permissions: []Permission{}, DefaultTarget: &DefaultTarget{Program: "claude"}},
			`{"name":"t","kind":"adapter","version":"1","runtime":"lua","entrypoint":"t.lua","permissions":[],"default_target":{"program":"claude"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.m)
			require.NoError(t, err)
			if tt.want != "" {
				require.JSONEq(t, tt.want, string(data))
			}
			back, err := ParseJSON(data)
			require.NoError(t, err)
			require.Equal(t, tt.m, back)
		})
	}

	t.Run("nil permissions and empty events", func(t *testing.T) {
		m := &Manifest{Name: "n", Kind: KindMacro, Version: "1", Runtime: RuntimeLua, Entrypoint: "n.lua", Events: &Events{}}
		data, err := json.Marshal(m)
		require.NoError(t, err)
		require.JSONEq(t, `{"name":"n","kind":"macro","version":"1","runtime":"lua","entrypoint":"n.lua","permissions":[]}`, string(data))
		// A value (not pointer) marshals the same way.
		data2, err := json.Marshal(*m)
		require.NoError(t, err)
		require.Equal(t, data, data2)
	})

	t.Run("toml and json agree", func(t *testing.T) {
		l, err := LoadFile("../testdata/plugins/echo/manifest.toml")
		require.NoError(t, err)
		data, err := json.Marshal(&l.Manifest)
		require.NoError(t, err)
		back, err := ParseJSON(data)
		require.NoError(t, err)
		require.Equal(t, &l.Manifest, back)
	})
}

func TestPluginManifestClone(t *testing.T) {
	orig := validManifest()
	c := orig.Clone()
	require.Equal(t, orig, c)

	c.Permissions[0] = "x"
	c.Hooks[0] = "x"
	c.Intents[0] = "x"
	c.DefaultTarget.Program = "x"
	c.DefaultTarget.Args[0] = "x"
	c.DefaultTarget.Env["LANG"] = "x"
	c.DefaultTarget.RequiredEnv[0] = "x"
	c.Events.Handles[0] = "x"
	c.Events.Emits[0] = "x"
	require.Equal(t, validManifest(), orig)

	var nilM *Manifest
	require.Nil(t, nilM.Clone())
	bare := &Manifest{Name: "b"}
	require.Equal(t, bare, bare.Clone())
}

func TestPermissionsAndKinds(t *testing.T) {
	all := AllPermissions()
	require.Len(t, all, 7)
	for _, p := range all {
		require.True(t, p.Valid(), p)
	}
	all[0] = "mutated"
	require.Equal(t, PermissionSessionSpawn, AllPermissions()[0], "AllPermissions returns a copy")
	require.False(t, Permission("net.http").Valid())

	m := &Manifest{Permissions: []Permission{PermissionScreenRead}}
	require.True(t, m.HasPermission(PermissionScreenRead))
	require.False(t, m.HasPermission(PermissionInputWrite))

	require.True(t, KindMacro.Valid())
	require.False(t, Kind("Adapter").Valid())
	require.True(t, RuntimeWASM.Valid())
	require.False(t, Runtime("js").Valid())
}

func TestDefaultTargetMissingEnv(t *testing.T) {
	env := map[string]string{"SET": "1", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tgt := &DefaultTarget{Program: "x", RequiredEnv: []string{"UNSET", "SET", "EMPTY"}}
	require.Equal(t, []string{"UNSET", "EMPTY"}, tgt.MissingEnv(lookup))
	require.Empty(t, (&DefaultTarget{Program: "x"}).MissingEnv(lookup))
	var none *DefaultTarget
	require.Empty(t, none.MissingEnv(lookup))
}

// TestManifestSchemaMatchesStruct keeps the field schema used for unknown
// keys and error messages in step with the structs' tags.
func TestManifestSchemaMatchesStruct(t *testing.T) {
	var check func(t *testing.T, typ reflect.Type, n *manifestNode, path string)
	check = func(t *testing.T, typ reflect.Type, n *manifestNode, path string) {
		require.Equal(t, mnTable, n.kind, path)
		require.Equal(t, typ.NumField(), len(n.fields), "field count of %s", typ)
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			require.Equal(t, name, f.Tag.Get("toml"), "toml and json names of %s.%s", typ, f.Name)
			c, ok := n.fields[name]
			require.True(t, ok, "schema lacks %s%s", path, name)
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			var want manifestNodeKind
			switch ft.Kind() {
			case reflect.String:
				want = mnString
			case reflect.Int:
				want = mnInt
			case reflect.Slice:
				require.Equal(t, reflect.String, ft.Elem().Kind())
				want = mnStringList
			case reflect.Map:
				require.Equal(t, reflect.String, ft.Elem().Kind())
				want = mnStringMap
			case reflect.Struct:
				check(t, ft, c, path+name+".")
				continue
			default:
				t.Fatalf("unexpected kind %s", ft.Kind())
			}
			require.Equal(t, want, c.kind, path+name)
		}
	}
	check(t, reflect.TypeFor[Manifest](), manifestSchema, "")
}
