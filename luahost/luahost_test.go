package luahost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/manifest"
)

// luaPlugin builds a Extension from inline source, as an adapter with
// the given permissions (all of them when perms is nil).
func luaPlugin(t testing.TB, src string, perms []manifest.Permission, limits luahost.Limits) *luahost.Extension {
	t.Helper()
	if perms == nil {
		perms = manifest.AllPermissions()
	}
	m := manifest.Manifest{Name: "probe", Kind: manifest.KindAdapter, Version: "0.1.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua", Permissions: perms}
	ext, err := luahost.New(m, []byte(src), luahost.Options{Limits: limits})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ext.Close()) })
	return ext
}

// probeSource wraps Lua statements into a plugin whose intent "run"
// executes them and reports the value of the expression they set in
// `result`, converted with tostring, as its last_intent.
func probeSource(body string) string {
	return "local M = {}\nfunction M.run(params)\n" + body + "\nreturn {last_intent = tostring(result)}\nend\nreturn M\n"
}

// run calls the probe's "run" intent and returns tostring(result).
func run(t testing.TB, ext *luahost.Extension) (string, error) {
	t.Helper()
	plan, err := ext.Plan(context.Background(), "run", nil)
	if err != nil {
		return "", err
	}
	require.NotNil(t, plan.LastIntent)
	return *plan.LastIntent, nil
}

func TestLuaSandbox(t *testing.T) {
	ext := luaPlugin(t, probeSource(`
local names = {"io", "os", "package", "debug", "require", "dofile", "loadfile", "load", "loadstring", "collectgarbage", "module", "coroutine", "bit32", "utf8"}
local present = {}
for _, n in ipairs(names) do if _G[n] ~= nil then present[#present + 1] = n end end
result = #present == 0 and "none" or table.concat(present, ",")`), nil, tuitest.TestLimits)
	got, err := run(t, ext)
	require.NoError(t, err)
	require.Equal(t, "none", got)

	// What stays: the safe libraries and the host table.
	ext = luaPlugin(t, probeSource(`result = table.concat({type(string.format), type(table.insert), type(math.floor), type(pcall), type(print), type(ptywright), ptywright.version}, ",")`), nil, tuitest.TestLimits)
	got, err = run(t, ext)
	require.NoError(t, err)
	require.Equal(t, "function,function,function,function,function,table,"+ptywright.Version, got)
}

func TestLuaPrintIsCapturedNotWritten(t *testing.T) {
	ext := luaPlugin(t, `local M = {}
function M.loud() print("hello", 42, nil) print(string.rep("x", 70000)) return {} end
function M.quiet() return {} end
return M`, nil, tuitest.TestLimits)
	_, err := ext.Plan(context.Background(), "loud", nil)
	require.NoError(t, err)
	out := ext.LastOutput()
	require.True(t, strings.HasPrefix(out, "hello\t42\tnil\nxxx"))
	require.True(t, strings.HasSuffix(out, "[output truncated]"))
	require.Less(t, len(out), 70000)

	// Each call starts with an empty buffer.
	_, err = ext.Plan(context.Background(), "quiet", nil)
	require.NoError(t, err)
	require.Empty(t, ext.LastOutput())
}

func TestLuaPermissionGating(t *testing.T) {
	const src = `
local function has(t, k) return t ~= nil and t[k] ~= nil end
local a, m = ptywright.action, ptywright.matcher
result = table.concat({
  tostring(a ~= nil), tostring(has(a, "text")), tostring(has(a, "key")), tostring(has(a, "mark_transcript")),
  tostring(has(a, "kill")), tostring(has(a, "signal")), tostring(has(a, "resize")),
  tostring(m ~= nil), tostring(has(m, "contains_text")), tostring(has(m, "lua")),
  tostring(ptywright.re ~= nil),
}, " ")`
	tests := []struct {
		name  string
		perms []manifest.Permission
		want  string
	}{
		{"all", manifest.AllPermissions(), "true true true true true true true true true true true"},
		{"none", []manifest.Permission{manifest.PermissionScreenRead}, "false false false false false false false false false false true"},
		{"input only", []manifest.Permission{manifest.PermissionInputWrite}, "true true true true false false false false false false true"},
		{"kill only", []manifest.Permission{manifest.PermissionSessionKill}, "true false false false true true false false false false true"},
		{"resize only", []manifest.Permission{manifest.PermissionSessionResize}, "true false false false false false true false false false true"},
		{"matcher only", []manifest.Permission{manifest.PermissionMatcherWait}, "false false false false false false false true true true true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := run(t, luaPlugin(t, probeSource(src), tt.perms, tuitest.TestLimits))
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestLuaPlanActionsNeedPermissions(t *testing.T) {
	// A hand-built action table is checked against the manifest too.
	src := `local M = {}
function M.kill_it() return {actions = {{type = "kill"}}} end
function M.type_it() return {actions = {{type = "text", value = "x"}}} end
return M`
	ext := luaPlugin(t, src, []manifest.Permission{manifest.PermissionInputWrite}, tuitest.TestLimits)
	_, err := ext.Plan(context.Background(), "kill_it", nil)
	require.ErrorIs(t, err, ptywright.ErrPermissionDenied)
	require.ErrorContains(t, err, "actions[1] (kill)")
	require.ErrorContains(t, err, "session.kill")
	plan, err := ext.Plan(context.Background(), "type_it", nil)
	require.NoError(t, err)
	require.Equal(t, []ptywright.Action{ptywright.Text("x")}, plan.Actions)
}

func TestLuaActionAndMatcherHelpers(t *testing.T) {
	src := `local M = {}
local a, m = ptywright.action, ptywright.matcher
function M.everything()
  return {actions = {
    a.text("hi"), a.paste("p"), a.bracketed_paste("bp"), a.key("shift_tab"), a.interrupt(), a.eof(),
    a.kill(), a.signal("term"), a.resize(40, 120), a.mark_transcript("turn-1"),
  }, last_intent = "all"}
end
function M.tree_matcher(params)
  return m.any({
    m.contains_text("ready"), m.screen_regex("rea.y"), m.transcript_contains("t"), m.transcript_regex("t+"),
    m.cursor_at(1, 2), m.screen_stable(params.completed_turn_stable_ms), m.process_exited(),
    m.all({m.contains_text("a"), m.lua("echo", "has_text", {text = "x"})}),
  })
end
return M`
	ext := luaPlugin(t, src, nil, tuitest.TestLimits)
	plan, err := ext.Plan(context.Background(), "everything", nil)
	require.NoError(t, err)
	require.Equal(t, []ptywright.Action{
		ptywright.Text("hi"), ptywright.Paste("p"), ptywright.BracketedPaste("bp"), ptywright.Press(ptywright.KeyShiftTab),
		ptywright.Interrupt(), ptywright.EOF(), ptywright.Kill(), ptywright.SendSignal(ptywright.SignalTerm),
		ptywright.Resize(40, 120), ptywright.MarkTranscript("turn-1"),
	}, plan.Actions)
	require.Equal(t, "all", *plan.LastIntent)

	m, err := ext.WaitMatcher(context.Background(), "tree_matcher", json.RawMessage(`{"completed_turn_stable_ms":250}`))
	require.NoError(t, err)
	want := ptywright.Any(
		ptywright.ContainsText("ready"), ptywright.ScreenRegex("rea.y"), ptywright.TranscriptContains("t"), ptywright.TranscriptRegex("t+"),
		ptywright.CursorAt(1, 2), ptywright.ScreenStable(250*time.Millisecond), ptywright.ProcessExited(),
		ptywright.All(ptywright.ContainsText("a"), ptywright.Lua("echo", "has_text", json.RawMessage(`{"text":"x"}`))),
	)
	require.Equal(t, tuitest.MustJSON(want), tuitest.MustJSON(m))
}

func TestLuaHelperArgumentErrors(t *testing.T) {
	tests := []struct {
		call string
		want string
	}{
		{`ptywright.action.key(nil)`, "bad argument #1 to 'key' (string expected, got nil)"},
		{`ptywright.action.key("Enter")`, `bad argument #1 to 'key' (ptywright: unknown key "Enter" (valid keys: enter, escape,`},
		{`ptywright.action.text({})`, "bad argument #1 to 'text' (string expected, got table)"},
		{`ptywright.action.signal("stop")`, `bad argument #1 to 'signal' (ptywright: unknown signal "stop" (valid signals: int, term,`},
		{`ptywright.action.resize(0, 80)`, "bad argument #1 to 'resize' (rows: must be between 1 and"},
		{`ptywright.action.resize(24, "wide")`, "bad argument #2 to 'resize' (number expected, got string)"},
		{`ptywright.action.resize(24.5, 80)`, "bad argument #1 to 'resize' (number has no integer representation)"},
		{`ptywright.action.mark_transcript("")`, "bad argument #1 to 'mark_transcript' (label must not be empty)"},
		{`ptywright.matcher.screen_regex("(")`, "bad argument #1 to 'screen_regex' (invalid regular expression: error parsing regexp: missing closing )"},
		{`ptywright.matcher.contains_text("")`, "bad argument #1 to 'contains_text' (text must not be empty)"},
		{`ptywright.matcher.screen_stable(-1)`, "bad argument #1 to 'screen_stable' (min_ms must not be negative)"},
		{`ptywright.matcher.cursor_at(0, -1)`, "bad argument #2 to 'cursor_at' (col must not be negative)"},
		{`ptywright.matcher.any({})`, "bad argument #1 to 'any' (needs at least one matcher)"},
		{`ptywright.matcher.all({"ready"})`, "bad argument #1 to 'all' (element 1 is a string, not a matcher table)"},
		{`ptywright.matcher.lua("echo", "has_text", "params")`, "bad argument #3 to 'lua' (table or nil expected, got string)"},
		{`ptywright.re.find("x", "[")`, "bad argument #2 to 're.find' (invalid regular expression"},
		{`ptywright.json_decode("{")`, "bad argument #1 to 'json_decode' (cannot convert: invalid JSON"},
		{`ptywright.json_encode({[50] = 1})`, "cannot convert"},
	}
	for _, tt := range tests {
		t.Run(tt.call, func(t *testing.T) {
			ext := luaPlugin(t, probeSource(`local ok, e = pcall(function() return `+tt.call+` end) result = tostring(ok) .. ": " .. tostring(e)`), nil, tuitest.TestLimits)
			got, err := run(t, ext)
			require.NoError(t, err)
			require.Contains(t, got, "false: ")
			require.Contains(t, got, tt.want)
			require.Contains(t, got, "probe/main.lua:", "errors carry the position of the call")
		})
	}
}

func TestLuaRegexAndJSONHelpers(t *testing.T) {
	tests := []struct {
		expr string
		want string
	}{
		{`select("#", ptywright.re.find("hello world", "o w"))`, "2"},
		{`table.concat({ptywright.re.find("key=val", "(\\w+)=(\\w+)")}, ",")`, "1,7,key,val"},
		{`table.concat({ptywright.re.find("aXbX", "X", 3)}, ",")`, "4,4"},
		{`tostring(ptywright.re.find("abc", "x"))`, "nil"},
		{`ptywright.re.match("v1.2.3", "\\d+\\.\\d+")`, "1.2"},
		{`table.concat({ptywright.re.match("v1.2.3", "(\\d+)\\.(\\d+)")}, ",")`, "1,2"},
		{`tostring(select(2, ptywright.re.match("ab", "(a)(x)?")))`, "nil"},
		{`(function() local r = {} for w in ptywright.re.gmatch("one two  three", "\\w+") do r[#r+1] = w end return table.concat(r, "|") end)()`, "one|two|three"},
		{`(function() local r = {} for k, v in ptywright.re.gmatch("a=1 b=2", "(\\w)=(\\d)") do r[#r+1] = k .. v end return table.concat(r, "|") end)()`, "a1|b2"},
		{`ptywright.re.match("ab|cd", "cd|ab")`, "ab"},
		{`ptywright.json_encode({b = {1, 2.5, "x"}, a = true, e = {}, z = ptywright.empty_array})`, `{"a":true,"b":[1,2.5,"x"],"e":{},"z":[]}`},
		{`ptywright.json_encode("<&>")`, `"<&>"`},
		{`ptywright.json_encode({1, nil, 3})`, `[1,null,3]`},
		{`ptywright.json_decode('{"a":[1,{"b":null}],"c":"d"}').a[1]`, "1"},
		{`ptywright.json_decode('{"a":[1,{"b":null}],"c":"d"}').c`, "d"},
		{`tostring(ptywright.json_decode("null"))`, "nil"},
		{`pcall(function() ptywright.empty_array[1] = 2 end)`, "false"},
		{`string.match("x = 10", "(%w+) = (%w+)")`, "x"},
		{`select(2, string.gsub("hello", "l", "L"))`, "2"},
		{`string.find("a+b", "+", 1, true)`, "2"},
		{`string.rep("ab", 3, ",")`, "ab,ab,ab"},
		{`("MiXeD Ünïcode ÉÀ"):lower()`, "mixed Ünïcode ÉÀ"},
		{`("MiXeD ünï"):upper()`, "MIXED üNï"},
		{`#("ÀÉ"):lower()`, "4"},
		{`table.concat({1, 2, 3}, "-", 2)`, "2-3"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := run(t, luaPlugin(t, probeSource("result = "+tt.expr), nil, tuitest.TestLimits))
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

// TestLuaRunaways runs plugins that never finish on their own: each is
// stopped with a typed error and the same instance answers the next call.
func TestLuaRunaways(t *testing.T) {
	tests := []struct {
		name string
		body string
		is   error
		want string
		// fresh: the host replaced the state, so module values are gone.
		fresh bool
	}{
		{"loop", `while true do end`, luahost.ErrBudget, "instruction budget exceeded", false},
		{"loop in pcall", `pcall(function() while true do end end)`, luahost.ErrBudget, "instruction budget exceeded", false},
		{"pcall in loop", `while true do pcall(function() while true do end end) end`, luahost.ErrBudget, "instruction budget exceeded", false},
		{"xpcall swallowing", `while true do xpcall(function() while true do end end, function(e) return "swallowed" end) end`, luahost.ErrBudget, "instruction budget exceeded", false},
		{"pcall of error", `while true do pcall(error, "x") end`, luahost.ErrBudget, "instruction budget exceeded", false},
		{"recursion", `local function f(n) return f(n + 1) + 1 end f(1)`, luahost.ErrRuntime, "stack overflow", true},
		{"huge string.rep", `local s = string.rep("x", 1e9)`, luahost.ErrRuntime, "string.rep: result would exceed 16777216 bytes", false},
		{"huge string.rep method", `local s = ("xy"):rep(1e8, ",")`, luahost.ErrRuntime, "string.rep: result would exceed", false},
		{"catastrophic find", `string.find(string.rep("a", 30) .. ":", string.rep("a*", 12) .. "b")`, luahost.ErrBudget, "instruction budget exceeded", false},
		{"catastrophic match in pcall", `while true do pcall(string.match, string.rep("a", 30) .. ":", string.rep("a*", 12) .. "b") end`, luahost.ErrBudget, "instruction budget exceeded", false},
		{"catastrophic gsub", `string.gsub(string.rep("a", 30) .. ":", ".-.-.-.-.-.-.-.-b", "")`, luahost.ErrBudget, "instruction budget exceeded", false},
		{"table.concat of many", `local t = {} for i = 1, 1e5 do t[i] = "x" end while true do table.concat(t) end`, luahost.ErrBudget, "instruction budget exceeded", false},
		{"print flood", `while true do print(string.rep("x", 1e6)) end`, luahost.ErrBudget, "instruction budget exceeded", false},
	}
	src := `local M = {}
local calls = 0
function M.runaway(params)
  calls = calls + 1
  %s
  return {}
end
function M.ping(params) calls = calls + 1 return {last_intent = "pong " .. calls} end
return M`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The instruction budget must trip, not the clock: a minute is
			// far beyond what the slowest case needs, even under -race.
			ext := luaPlugin(t, strings.Replace(src, "%s", tt.body, 1), nil, luahost.Limits{Instructions: 2_000_000, Timeout: time.Minute})
			ctx := context.Background()
			for round := 1; round <= 2; round++ {
				_, err := ext.Plan(ctx, "runaway", nil)
				require.ErrorIs(t, err, tt.is)
				require.ErrorContains(t, err, tt.want)
				var pe *luahost.Error
				require.ErrorAs(t, err, &pe)
				require.Equal(t, "probe", pe.Plugin)
				require.Equal(t, "runaway", pe.Function)

				plan, err := ext.Plan(ctx, "ping", nil)
				require.NoError(t, err, "the instance answers after a runaway")
				require.NotNil(t, plan.LastIntent)
				if tt.fresh {
					require.Equal(t, "pong 1", *plan.LastIntent, "a fresh state counts from zero")
				} else {
					require.Equal(t, fmt.Sprintf("pong %d", 2*round), *plan.LastIntent, "the same state kept its module values")
				}
			}
		})
	}
}

func TestLuaTimeBudget(t *testing.T) {
	ext := luaPlugin(t, probeSource(`while true do end`), nil, luahost.Limits{Instructions: 1 << 62, Timeout: 50 * time.Millisecond})
	_, err := run(t, ext)
	require.ErrorIs(t, err, luahost.ErrBudget)
	require.ErrorContains(t, err, "time budget exceeded (50ms)")
}

func TestLuaContextStopsACall(t *testing.T) {
	ext := luaPlugin(t, probeSource(`while true do end`), nil, luahost.Limits{Instructions: 1 << 62, Timeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := ext.Plan(ctx, "run", nil)
	require.ErrorIs(t, err, ptywright.ErrTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_, err = ext.Plan(ctx, "run", nil)
	require.ErrorIs(t, err, ptywright.ErrCancelled)
}

func TestLuaErrorValues(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"table through pcall", `local ok, e = pcall(error, {code = 1}) result = tostring(ok) .. " " .. type(e) .. " " .. e.code`, "false table 1"},
		{"table through nested pcall", `local ok, e = pcall(function() local ok2, e2 = pcall(error, {code = 2}) error(e2) end) result = e.code`, "2"},
		{"number stays a number", `local ok, e = pcall(error, 42) result = type(e) .. " " .. e`, "number 42"},
		{"nil error value", `local ok, e = pcall(error) result = tostring(ok) .. " " .. tostring(e)`, "false nil"},
		{"string with position", `local ok, e = pcall(function() error("boom") end) result = e`, "probe/main.lua:3: boom"},
		{"level 2 blames the caller", `local function f() error("boom", 2) end
local ok, e = pcall(function()
  f()
end) result = e`, "probe/main.lua:5: boom"},
		{"level 0 has no position", `local ok, e = pcall(function() error("boom", 0) end) result = e`, "boom"},
		{"xpcall handler sees the table", `local ok, e = xpcall(function() error({code = 3}) end, function(v) return {wrapped = v.code} end) result = e.wrapped`, "3"},
		{"xpcall passes arguments", `local ok, a, b = xpcall(function(x, y) return x + y, x * y end, print, 2, 3) result = tostring(ok) .. a .. b`, "true56"},
		{"runtime error message", `local ok, e = pcall(function() local t = nil return t.x end) result = e`, "probe/main.lua:3: attempt to index"},
		{"go panic in a library function", `local ok, e = pcall(string.format, "%") result = tostring(ok) .. " " .. e`, "false "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := run(t, luaPlugin(t, probeSource(tt.body), nil, tuitest.TestLimits))
			require.NoError(t, err)
			require.Contains(t, got, tt.want)
		})
	}
}

func TestLuaGoPanicBecomesLuaError(t *testing.T) {
	// go-lua's string.format indexes past the end of "%": a Go panic that
	// the host turns into an ordinary, catchable Lua error.
	got, err := run(t, luaPlugin(t, probeSource(`local ok, e = pcall(string.format, "%") result = e`), nil, tuitest.TestLimits))
	require.NoError(t, err)
	require.Contains(t, got, "string.format: host function failed")

	_, err = run(t, luaPlugin(t, probeSource(`string.format("%")`), nil, tuitest.TestLimits))
	require.ErrorIs(t, err, luahost.ErrRuntime)
	require.ErrorContains(t, err, "host function failed")
}

func TestLuaUncaughtErrorsReachTheHost(t *testing.T) {
	ext := luaPlugin(t, probeSource(`error({code = 7, why = "nope"})`), nil, tuitest.TestLimits)
	_, err := run(t, ext)
	var pe *luahost.Error
	require.ErrorAs(t, err, &pe)
	require.ErrorIs(t, err, luahost.ErrRuntime)
	require.Equal(t, map[string]any{"code": int64(7), "why": "nope"}, pe.Value)
	require.Equal(t, `plugin probe: run: {"code":7,"why":"nope"} (at probe/main.lua:3)`, err.Error())
	require.Contains(t, pe.Traceback, "stack traceback:")
	require.Contains(t, pe.Traceback, "probe/main.lua:3: in function <probe/main.lua:2>")

	_, err = run(t, luaPlugin(t, probeSource(`local x = nil; x()`), nil, tuitest.TestLimits))
	require.ErrorAs(t, err, &pe)
	require.Contains(t, err.Error(), "plugin probe: run: probe/main.lua:3: attempt to call")
	require.Nil(t, pe.Value)
}

func TestLuaLoadErrors(t *testing.T) {
	m := manifest.Manifest{Name: "broken", Kind: manifest.KindAdapter, Version: "0.1.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
	tests := []struct {
		name, src, want string
		is              error
	}{
		{"syntax", "local M = {", "broken/main.lua:1:", luahost.ErrRuntime},
		{"no module", "local M = {}", "main.lua must return a table of functions (the module), got nil", luahost.ErrRuntime},
		{"error at load", `error("init failed")`, "broken/main.lua:1: init failed", luahost.ErrRuntime},
		{"runaway at load", `while true do end return {}`, "instruction budget exceeded", luahost.ErrBudget},
		{"binary chunk", "\x1bLua", "attempt to load a binary chunk", luahost.ErrRuntime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := luahost.New(m, []byte(tt.src), luahost.Options{Limits: tuitest.TestLimits})
			require.ErrorIs(t, err, tt.is)
			require.ErrorContains(t, err, tt.want)
			require.ErrorContains(t, err, "plugin broken: (load): ")
		})
	}
	bad := m
	bad.Name = ""
	_, err := luahost.New(bad, []byte("return {}"), luahost.Options{})
	require.ErrorIs(t, err, manifest.ErrInvalid)
}

func TestLuaClassifyResults(t *testing.T) {
	tests := []struct {
		name, ret string
		want      ptywright.StateSnapshot
		err       string
	}{
		{"minimal", `{state = "ready"}`, ptywright.StateSnapshot{State: "ready"}, ""},
		{"full", `{state = "ready", confidence = 0.75, evidence = "prompt", metadata = {options = {"yes", "no"}, n = 2}, last_intent = "x"}`,
			ptywright.StateSnapshot{State: "ready", Confidence: 0.75, Evidence: "prompt", Metadata: map[string]any{"options": []any{"yes", "no"}, "n": int64(2)}, LastIntent: strPtr("x")}, ""},
		{"table evidence", `{state = "s", evidence = {row = 3, text = "ok"}}`, ptywright.StateSnapshot{State: "s", Evidence: `{"row":3,"text":"ok"}`}, ""},
		{"empty metadata", `{state = "s", metadata = {}}`, ptywright.StateSnapshot{State: "s", Metadata: map[string]any{}}, ""},
		{"no state", `{confidence = 1}`, ptywright.StateSnapshot{}, `classify: field "state": want a non-empty string, got nil`},
		{"not a table", `"ready"`, ptywright.StateSnapshot{}, "classify returned string, want a table"},
		{"bad confidence", `{state = "s", confidence = "high"}`, ptywright.StateSnapshot{}, `field "confidence": want a number, got string`},
		{"array metadata", `{state = "s", metadata = {1, 2}}`, ptywright.StateSnapshot{}, `field "metadata": want a table with string keys`},
		{"function in metadata", `{state = "s", metadata = {f = print}}`, ptywright.StateSnapshot{}, "classify: metadata.f: a Lua function has no JSON form"},
		{"cycle", `(function() local t = {} t.self = t return {state = "s", metadata = t} end)()`, ptywright.StateSnapshot{}, "classify: metadata.self: table contains itself"},
		{"mixed keys", `{state = "s", metadata = {1, a = 2}}`, ptywright.StateSnapshot{}, "table mixes array (integer) and object (string) keys"},
		{"sparse", `{state = "s", metadata = {x = {[1] = 1, [30] = 3}}}`, ptywright.StateSnapshot{}, "classify: metadata.x: array is too sparse"},
		{"nan", `{state = "s", metadata = {x = 0/0}}`, ptywright.StateSnapshot{}, "has no JSON form"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ext := luaPlugin(t, "local M = {} function M.classify(ctx) return "+tt.ret+" end return M", nil, tuitest.TestLimits)
			st, err := ext.Classify(context.Background(), ptywright.ClassifyContext{Screen: "x"})
			if tt.err != "" {
				require.ErrorIs(t, err, luahost.ErrRuntime)
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, st)
		})
	}
}

func TestLuaClassifyContextAbsentFields(t *testing.T) {
	ext := luaPlugin(t, `local M = {}
function M.classify(ctx)
  local parts = {}
  for _, k in ipairs({"screen", "body_text", "status_text", "transcript", "sequence", "last_intent", "stable_ms", "completed_turn_stable_ms"}) do
    parts[#parts + 1] = k .. "=" .. tostring(ctx[k])
  end
  return {state = table.concat(parts, " ")}
end
return M`, nil, tuitest.TestLimits)
	st, err := ext.Classify(context.Background(), ptywright.ClassifyContext{Screen: "s", BodyText: "", Sequence: 7})
	require.NoError(t, err)
	require.Equal(t, "screen=s body_text= status_text= transcript=nil sequence=7 last_intent=nil stable_ms=nil completed_turn_stable_ms=nil", st.State)

	tr, li, ms, ct := "tail", "sent", int64(12), int64(300)
	st, err = ext.Classify(context.Background(), ptywright.ClassifyContext{Screen: "s", BodyText: "b", StatusText: "st", Transcript: &tr, Sequence: 8, LastIntent: &li, StableMs: &ms, CompletedTurnStableMs: &ct})
	require.NoError(t, err)
	require.Equal(t, "screen=s body_text=b status_text=st transcript=tail sequence=8 last_intent=sent stable_ms=12 completed_turn_stable_ms=300", st.State)
}

func TestLuaPlanResults(t *testing.T) {
	tests := []struct {
		name, ret string
		want      ptywright.ActionPlan
		err       error
		msg       string
	}{
		{"nothing", `{}`, ptywright.ActionPlan{}, nil, ""},
		{"empty actions", `{actions = {}}`, ptywright.ActionPlan{}, nil, ""},
		{"empty array sentinel", `{actions = ptywright.empty_array}`, ptywright.ActionPlan{}, nil, ""},
		{"clear intent", `{last_intent = ""}`, ptywright.ActionPlan{LastIntent: strPtr("")}, nil, ""},
		{"hand-built action", `{actions = {{type = "key", value = "enter"}}}`, ptywright.ActionPlan{Actions: []ptywright.Action{ptywright.Press(ptywright.KeyEnter)}}, nil, ""},
		{"bad action", `{actions = {{type = "key", value = "Enter"}}}`, ptywright.ActionPlan{}, ptywright.ErrInvalidAction, `actions[1]: action.value: ptywright: unknown key "Enter"`},
		{"unknown field", `{actions = {{type = "text", value = "x", extra = 1}}}`, ptywright.ActionPlan{}, ptywright.ErrInvalidAction, "actions[1]: action.extra: unknown field"},
		{"actions object", `{actions = {type = "text"}}`, ptywright.ActionPlan{}, luahost.ErrRuntime, `field "actions": want a list of actions`},
		{"nil", `nil`, ptywright.ActionPlan{}, luahost.ErrRuntime, "intent returned nil, want a table"},
		{"bad last_intent", `{last_intent = 3}`, ptywright.ActionPlan{}, luahost.ErrRuntime, `field "last_intent": want a string, got number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ext := luaPlugin(t, "local M = {} function M.go(p) return "+tt.ret+" end return M", nil, tuitest.TestLimits)
			plan, err := ext.Plan(context.Background(), "go", nil)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				require.ErrorContains(t, err, tt.msg)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, plan)
		})
	}
}

func TestLuaUnknownIntents(t *testing.T) {
	ext := luaPlugin(t, `local M = {}
function M.classify() return {state = "s"} end
function M.send(p) return {} end
function M.abort(p) return {} end
function M.wait_turn_matcher(p) return ptywright.matcher.process_exited() end
M.not_a_function = 3
return M`, nil, tuitest.TestLimits)
	ctx := context.Background()
	for _, intent := range []string{"fly", "classify", "describe", "wait_turn_matcher", "not_a_function", ""} {
		_, err := ext.Plan(ctx, intent, nil)
		require.ErrorIs(t, err, ptywright.ErrInvalidParams, intent)
		require.ErrorContains(t, err, "(intents: abort, send)")
	}
	_, err := ext.WaitMatcher(ctx, "send", nil)
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
	require.ErrorContains(t, err, `unknown wait intent "send" (wait matchers: wait_turn_matcher)`)

	// Params reach the intent as a table, {} when absent.
	ext = luaPlugin(t, `local M = {} function M.echo(p) return {last_intent = ptywright.json_encode(p)} end return M`, nil, tuitest.TestLimits)
	for _, params := range []string{"", "null", `{"a":[1,"x"]}`} {
		plan, err := ext.Plan(ctx, "echo", json.RawMessage(params))
		require.NoError(t, err)
		want := params
		if want == "" || want == "null" {
			want = "{}"
		}
		require.JSONEq(t, want, *plan.LastIntent)
	}
}

func TestLuaWaitMatcherValidation(t *testing.T) {
	ext := luaPlugin(t, `local M = {}
function M.bad_regex_matcher() return {type = "screen_regex", value = "("} end
function M.unknown_matcher() return {type = "telepathy"} end
function M.nil_matcher() return nil end
return M`, nil, tuitest.TestLimits)
	ctx := context.Background()
	_, err := ext.WaitMatcher(ctx, "bad_regex_matcher", nil)
	require.ErrorIs(t, err, ptywright.ErrInvalidMatcher)
	require.ErrorContains(t, err, "matcher.value: invalid regular expression")
	_, err = ext.WaitMatcher(ctx, "unknown_matcher", nil)
	require.ErrorIs(t, err, ptywright.ErrInvalidMatcher)
	require.ErrorContains(t, err, `unknown matcher type "telepathy"`)
	_, err = ext.WaitMatcher(ctx, "nil_matcher", nil)
	require.ErrorIs(t, err, ptywright.ErrInvalidMatcher)

	noWait := luaPlugin(t, `local M = {} function M.x_matcher() return {type = "process_exited"} end return M`, []manifest.Permission{manifest.PermissionInputWrite}, tuitest.TestLimits)
	_, err = noWait.WaitMatcher(ctx, "x_matcher", nil)
	require.ErrorIs(t, err, ptywright.ErrPermissionDenied)
}

func TestLuaClosedExtension(t *testing.T) {
	ext := luaPlugin(t, probeSource(`result = 1`), nil, tuitest.TestLimits)
	require.NoError(t, ext.Close())
	_, err := run(t, ext)
	require.ErrorIs(t, err, luahost.ErrRuntime)
	require.ErrorContains(t, err, "closed")
}

func strPtr(s string) *string { return &s }
