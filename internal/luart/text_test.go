package luart

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	lua "ptywright/internal/golua"
	"ptywright/manifest"
)

// textPlugin calls ptywright.text from exports the tests call with Go
// arguments; a plugin with no permission at all, since the helpers need
// none.
const textPlugin = `local M = {}
local text = ptywright.text
function M.trim(s) return {v = text.trim(s)} end
function M.is_blank(s) return {v = text.is_blank(s)} end
function M.starts(s, p) return {v = text.starts(s, p)} end
function M.contains(s, p) return {v = text.contains(s, p)} end
function M.split(s)
  local lines, n = text.split_lines(s)
  return {lines = lines, n = n, len = #lines}
end
function M.find(lines, sub, from, to) return {v = text.find_line(lines, sub, from, to)} end
function M.after(s, p) return {v = text.after(s, p)} end
function M.first_line(s, max) return {v = text.first_line(s, max)} end
function M.columns(s)
  local left, right = text.columns(s)
  return {left = left, right = right}
end
function M.segments(s, gap)
  local segs = text.segments(s, gap)
  return {v = segs, n = #segs}
end
function M.nonblank(lines, from, to) return {v = text.nonblank(lines, from, to)} end
function M.last_nonblank(lines, from, to) return {v = text.last_nonblank(lines, from, to)} end
function M.block(lines, i, from, to)
  local first, last = text.block(lines, i, from, to)
  return {first = first, last = last}
end
function M.joined(lines, i) return {v = table.concat(lines, "|", text.block(lines, i, i))} end
return M`

func textRuntime(t testing.TB, src string, limits Limits) *Runtime {
	t.Helper()
	m := manifest.Manifest{Name: "text", Kind: manifest.KindAdapter, Version: "1", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
	rt, err := New(context.Background(), Config{Manifest: m, Host: testHost, Source: []byte(src), Limits: limits})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	return rt
}

// callText calls export fn with args and returns its result table as Go
// values.
func callText(t *testing.T, rt *Runtime, fn string, args ...any) map[string]any {
	t.Helper()
	require.NoError(t, rt.Ensure(context.Background()))
	var got map[string]any
	err := rt.Call(context.Background(), fn, func(a *Args) error {
		for _, v := range args {
			if err := a.Go(v); err != nil {
				return err
			}
		}
		return nil
	}, func(v Value) error {
		g, err := v.Go("result")
		if err != nil {
			return err
		}
		if g != nil { // {v = nil} converts to nil: an empty table
			got, _ = g.(map[string]any)
		}
		return nil
	})
	require.NoError(t, err)
	if got == nil {
		got = map[string]any{}
	}
	return got
}

const nbsp = "\u00a0"

func TestTextTrim(t *testing.T) {
	rt := textRuntime(t, textPlugin, Limits{})
	for in, want := range map[string]string{
		"":                          "",
		"abc":                       "abc",
		"  abc  ":                   "abc",
		" \t\n\v\f\rabc\r\n\f\v\t ": "abc",
		"   \t ":                    "",
		nbsp + "abc" + nbsp:         "abc",
		nbsp + " " + nbsp + "a b" + " " + nbsp + "\r": "a b",
		nbsp:                     "",
		"a" + nbsp + "b":         "a" + nbsp + "b", // inside: kept
		"\xc2abc\xa0":            "\xc2abc\xa0",    // halves of a no-break space are not one
		"\xa0abc\xc2":            "\xa0abc\xc2",
		"\u2003abc\u3000":        "\u2003abc\u3000", // other Unicode spaces are not white space here
		"❯" + nbsp + "hi":        "❯" + nbsp + "hi",
		"line one\nline two\n\n": "line one\nline two",
	} {
		require.Equal(t, want, callText(t, rt, "trim", in)["v"], "trim(%q)", in)
		require.Equal(t, want == "", callText(t, rt, "is_blank", in)["v"], "is_blank(%q)", in)
	}
	// A number converts, as it does for string.* functions.
	require.Equal(t, "12", callText(t, rt, "trim", 12)["v"])
	require.Equal(t, false, callText(t, rt, "is_blank", 0)["v"])
}

func TestTextStartsAndContains(t *testing.T) {
	rt := textRuntime(t, textPlugin, Limits{})
	for _, tc := range []struct {
		s, p             string
		starts, contains bool
	}{
		{"", "", true, true},
		{"abc", "", true, true},
		{"", "a", false, false},
		{"abc", "ab", true, true},
		{"abc", "bc", false, true},
		{"abc", "abcd", false, false},
		{"a.c", "a.", true, true}, // plain: no pattern characters
		{"abc", "a.", false, false},
		{"%d1", "%d", true, true},
		{"❯" + nbsp + "x", "❯" + nbsp, true, true},
		{"line\r\n", "\r\n", false, true},
	} {
		require.Equal(t, tc.starts, callText(t, rt, "starts", tc.s, tc.p)["v"], "starts(%q, %q)", tc.s, tc.p)
		require.Equal(t, tc.contains, callText(t, rt, "contains", tc.s, tc.p)["v"], "contains(%q, %q)", tc.s, tc.p)
	}
}

func TestTextSplitLines(t *testing.T) {
	rt := textRuntime(t, textPlugin, Limits{})
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\nb", []string{"a", "b"}},
		{"a\n\n", []string{"a", ""}},
		{"\n", []string{""}},
		{"\n\n", []string{"", ""}},
		{"a\r\nb\r\n", []string{"a", "b"}},
		{"a\rb\r", []string{"a\rb\r"}},              // a lone \r is no line break
		{"a\r\r\nb", []string{"a\r", "b"}},          // only the \r right before \n goes
		{"  x  \n" + nbsp, []string{"  x  ", nbsp}}, // lines are not trimmed
		{"❯ hi\n──\n", []string{"❯ hi", "──"}},
	} {
		got := callText(t, rt, "split", tc.in)
		require.EqualValues(t, len(tc.want), got["n"], "split_lines(%q): n", tc.in)
		require.EqualValues(t, len(tc.want), got["len"], "split_lines(%q): #lines", tc.in)
		if len(tc.want) == 0 {
			continue
		}
		var lines []string
		for _, v := range got["lines"].([]any) {
			lines = append(lines, v.(string))
		}
		require.Equal(t, tc.want, lines, "split_lines(%q)", tc.in)
	}
}

func TestTextFindLine(t *testing.T) {
	rt := textRuntime(t, textPlugin, Limits{})
	lines := []string{"alpha", "beta gamma", "", "gamma", "a.b"}
	for _, tc := range []struct {
		sub      string
		from, to any
		want     any
	}{
		{"gamma", nil, nil, int64(2)},
		{"gamma", 3, nil, int64(4)},
		{"gamma", 3, 3, nil},
		{"gamma", 5, 4, nil}, // an empty range
		{"alpha", 2, nil, nil},
		{"a.b", nil, nil, int64(5)}, // plain
		{"a%.b", nil, nil, nil},
		{"", nil, nil, int64(1)},
		{"", 3, nil, int64(3)},
		{"gamma", -10, 100, int64(2)}, // clamped to the array
		{"gamma", 0, 1, nil},
		{"gamma", 6, nil, nil},
		{"missing", nil, nil, nil},
	} {
		got := callText(t, rt, "find", lines, tc.sub, tc.from, tc.to)["v"]
		require.Equal(t, tc.want, got, "find_line(lines, %q, %v, %v)", tc.sub, tc.from, tc.to)
	}
	require.Nil(t, callText(t, rt, "find", []string{}, "x")["v"])
}

// TestTextLists: starts, contains and after take a list of alternatives
// too, tried in order.
func TestTextLists(t *testing.T) {
	rt := textRuntime(t, textPlugin, Limits{})
	for _, tc := range []struct {
		s                string
		p                []string
		starts, contains bool
		after            any
	}{
		{"hello", []string{"x", "he"}, true, true, "llo"},
		{"hello", []string{"he", "hel"}, true, true, "llo"}, // the first that fits
		{"hello", []string{"hel", "he"}, true, true, "lo"},
		{"hello", []string{"ll", "z"}, false, true, nil},
		{"hello", []string{}, false, false, nil},
		{"hello", []string{""}, true, true, "hello"},
		{"", []string{"a", ""}, true, true, ""},
		{"• Working", []string{"• ", "◦ "}, true, true, "Working"},
		{"◦ Working", []string{"• ", "◦ "}, true, true, "Working"},
	} {
		require.Equal(t, tc.starts, callText(t, rt, "starts", tc.s, tc.p)["v"], "starts(%q, %q)", tc.s, tc.p)
		require.Equal(t, tc.contains, callText(t, rt, "contains", tc.s, tc.p)["v"], "contains(%q, %q)", tc.s, tc.p)
		require.Equal(t, tc.after, callText(t, rt, "after", tc.s, tc.p)["v"], "after(%q, %q)", tc.s, tc.p)
	}
}

func TestTextAfter(t *testing.T) {
	rt := textRuntime(t, textPlugin, Limits{})
	for _, tc := range []struct {
		s, p string
		want any
	}{
		{"abc", "a", "bc"},
		{"abc", "abc", ""},
		{"abc", "", "abc"},
		{"abc", "b", nil},
		{"abc", "abcd", nil},
		{"", "", ""},
		{"a.c", "a.", "c"}, // plain
		{"abc", "a.", nil},
		{"❯ 1. Yes", "❯ ", "1. Yes"},
		{"❯" + nbsp + "hi", "❯ ", nil}, // a no-break space is not a space
	} {
		require.Equal(t, tc.want, callText(t, rt, "after", tc.s, tc.p)["v"], "after(%q, %q)", tc.s, tc.p)
	}
	require.Equal(t, "23", callText(t, rt, "after", 123, 1)["v"], "numbers convert")
}

func TestTextFirstLine(t *testing.T) {
	rt := textRuntime(t, textPlugin, Limits{})
	for _, tc := range []struct {
		s    string
		max  any
		want string
	}{
		{"hello", nil, "hello"},
		{"", nil, ""},
		{" \n\t \n", nil, ""},
		{"  \n\t hello world  \nsecond", nil, "hello world"},
		{"a\r\nb", nil, "a"},
		{nbsp + "x" + nbsp + " ", nil, "x"},
		{"x\ry", nil, "x\ry"}, // a lone \r is no line break
		{"abcdef", 3, "abc"},
		{"abc", 3, "abc"},
		{"abc→", 6, "abc→"}, // not longer than max: not cut
		{"ab→cd", 3, "ab"},  // the cut ends inside →: it goes
		{"ab→cd", 4, "ab"},
		{"ab→cd", 5, "ab"}, // the cut ends right after →: it goes too
		{"ab→cd", 6, "ab→c"},
		{"ab  cd", 3, "ab "}, // what is left is not trimmed again
		{"abc", 0, ""},
	} {
		require.Equal(t, tc.want, callText(t, rt, "first_line", tc.s, tc.max)["v"], "first_line(%q, %v)", tc.s, tc.max)
	}
}

func TestTextColumns(t *testing.T) {
	rt := textRuntime(t, textPlugin, Limits{})
	for _, tc := range []struct {
		s           string
		left, right any
	}{
		{"Label  Description", "Label", "Description"},
		{"Label", "Label", nil},
		{"", "", nil},
		{" Label ", "Label", nil},
		{"a b  c  d", "a b", "c  d"}, // the first run of two
		{"Label      Wide gap ", "Label", "Wide gap"},
		{"Label   ", "Label", ""},
		{"  a  b", "", "a  b"},
		{"a\t\tb", "a\t\tb", nil}, // only spaces make a run
		{"a" + nbsp + nbsp + "b", "a" + nbsp + nbsp + "b", nil},
		{nbsp + "Opus 4.1" + "  " + "Legacy" + nbsp, "Opus 4.1", "Legacy"},
	} {
		got := callText(t, rt, "columns", tc.s)
		require.Equal(t, tc.left, got["left"], "columns(%q): left", tc.s)
		require.Equal(t, tc.right, got["right"], "columns(%q): right", tc.s)
	}
}

func TestTextSegments(t *testing.T) {
	rt := textRuntime(t, textPlugin, Limits{})
	for _, tc := range []struct {
		s    string
		gap  any
		want []string
	}{
		{"⏸ manual mode on · ? for shortcuts", nil, []string{"⏸ manual mode on", "? for shortcuts"}},
		{"? for shortcuts   ◐ medium · /effort", nil, []string{"? for shortcuts", "◐ medium", "/effort"}},
		{"a  b · c", nil, []string{"a", "b", "c"}},
		{"a  b   c · d", 3, []string{"a  b", "c", "d"}},
		{"a b", 1, []string{"a", "b"}},
		{"", nil, nil},
		{" · ", nil, nil},
		{"a ·  · b", nil, []string{"a", "b"}},
		{"a · b ·", nil, []string{"a", "b"}}, // a separator ends the row
		{"a · ·", nil, []string{"a", "·"}},
		{"a · b·", nil, []string{"a", "b·"}},
		{"a·b · c·d", nil, []string{"a·b", "c·d"}}, // only a dot between spaces separates
		{"  x   ", nil, []string{"x"}},
		{nbsp + "x" + nbsp + " · y", nil, []string{"x", "y"}},
		{"a\t\tb", nil, []string{"a\t\tb"}},
	} {
		got := callText(t, rt, "segments", tc.s, tc.gap)
		require.EqualValues(t, len(tc.want), got["n"], "segments(%q, %v): n", tc.s, tc.gap)
		var segs []string
		if v, ok := got["v"].([]any); ok {
			for _, x := range v {
				segs = append(segs, x.(string))
			}
		}
		require.Equal(t, tc.want, segs, "segments(%q, %v)", tc.s, tc.gap)
	}
}

func TestTextNonblank(t *testing.T) {
	rt := textRuntime(t, textPlugin, Limits{})
	lines := []string{"", "  ", "a", nbsp, "b", "\t"}
	for _, tc := range []struct {
		from, to    any
		first, last any
	}{
		{nil, nil, int64(3), int64(5)},
		{4, nil, int64(5), int64(5)},
		{4, 4, nil, nil},
		{1, 4, int64(3), int64(3)},
		{6, nil, nil, nil},
		{5, 3, nil, nil}, // an empty span
		{-5, 100, int64(3), int64(5)},
	} {
		require.Equal(t, tc.first, callText(t, rt, "nonblank", lines, tc.from, tc.to)["v"], "nonblank(lines, %v, %v)", tc.from, tc.to)
		require.Equal(t, tc.last, callText(t, rt, "last_nonblank", lines, tc.from, tc.to)["v"], "last_nonblank(lines, %v, %v)", tc.from, tc.to)
	}
	require.Nil(t, callText(t, rt, "nonblank", []string{})["v"])
	require.Nil(t, callText(t, rt, "last_nonblank", []string{})["v"])
}

func TestTextBlock(t *testing.T) {
	rt := textRuntime(t, textPlugin, Limits{})
	lines := []string{"a", "b", "", "c", "d", "e", " ", "f"}
	for _, tc := range []struct {
		i, from, to any
		first, last int64
	}{
		{1, nil, nil, 1, 2},
		{2, nil, nil, 1, 2},
		{3, nil, nil, 3, 2}, // a blank line: empty
		{5, nil, nil, 4, 6},
		{5, 5, nil, 5, 6},
		{5, 1, 5, 4, 5},
		{5, 5, 5, 5, 5},
		{8, nil, nil, 8, 8},
		{9, nil, nil, 9, 8}, // past the end: empty
		{0, nil, nil, 0, -1},
		{5, 6, 8, 5, 4}, // outside from..to: empty
		{4, -10, 100, 4, 6},
	} {
		got := callText(t, rt, "block", lines, tc.i, tc.from, tc.to)
		require.Equal(t, []any{tc.first, tc.last}, []any{got["first"], got["last"]}, "block(lines, %v, %v, %v)", tc.i, tc.from, tc.to)
	}
	// The rows from i down to the first blank one, joined.
	for i, want := range map[int]string{1: "a|b", 2: "b", 3: "", 4: "c|d|e", 8: "f", 9: ""} {
		require.Equal(t, want, callText(t, rt, "joined", lines, i)["v"], "joined(%d)", i)
	}
}

// TestTextArgumentErrors: every helper names itself, as text.<name>, in
// Lua's "bad argument" message.
func TestTextArgumentErrors(t *testing.T) {
	rt := textRuntime(t, `local M = {}
local text = ptywright.text
function M.trim() return text.trim({}) end
function M.trim_none() return text.trim() end
function M.is_blank() return text.is_blank(nil) end
function M.starts() return text.starts("a", true) end
function M.contains() return text.contains(nil, "a") end
function M.split() return text.split_lines({}) end
function M.find_lines() return text.find_line("a", "a") end
function M.find_sub() return text.find_line({}, {}) end
function M.find_from() return text.find_line({}, "a", "x") end
function M.find_to() return text.find_line({}, "a", 1, 1.5) end
function M.find_element() return text.find_line({"a", 2, "c"}, "c") end
function M.find_hole() return text.find_line({"a", nil, "c"}, "c", 1, 3) end
function M.starts_item() return text.starts("a", {"x", 2}) end
function M.contains_item() return text.contains("a", {"x", {}}) end
function M.after() return text.after("a") end
function M.after_item() return text.after("a", {true}) end
function M.first_line() return text.first_line({}) end
function M.first_line_max() return text.first_line("a", -1) end
function M.columns() return text.columns(nil) end
function M.segments() return text.segments({}) end
function M.segments_gap() return text.segments("a", 0) end
function M.nonblank() return text.nonblank("a") end
function M.nonblank_line() return text.nonblank({"", false}) end
function M.last_nonblank() return text.last_nonblank({}, "x") end
function M.block() return text.block({"a"}) end
function M.block_line() return text.block({"a", 1, "c"}, 1) end
return M`, Limits{})
	for fn, want := range map[string]string{
		"trim":           "bad argument #1 to 'text.trim' (string expected, got table)",
		"trim_none":      "bad argument #1 to 'text.trim' (string expected, got no value)",
		"is_blank":       "bad argument #1 to 'text.is_blank' (string expected, got nil)",
		"starts":         "bad argument #2 to 'text.starts' (string expected, got boolean)",
		"contains":       "bad argument #1 to 'text.contains' (string expected, got nil)",
		"split":          "bad argument #1 to 'text.split_lines' (string expected, got table)",
		"find_lines":     "bad argument #1 to 'text.find_line' (table expected, got string)",
		"find_sub":       "bad argument #2 to 'text.find_line' (string expected, got table)",
		"find_from":      "bad argument #3 to 'text.find_line' (number expected, got string)",
		"find_to":        "bad argument #4 to 'text.find_line' (number has no integer representation)",
		"find_element":   "bad argument #1 to 'text.find_line' (line 2 is a number, not a string)",
		"find_hole":      "bad argument #1 to 'text.find_line' (line 2 is a nil, not a string)",
		"starts_item":    "bad argument #2 to 'text.starts' (item 2 is a number, not a string)",
		"contains_item":  "bad argument #2 to 'text.contains' (item 2 is a table, not a string)",
		"after":          "bad argument #2 to 'text.after' (string expected, got no value)",
		"after_item":     "bad argument #2 to 'text.after' (item 1 is a boolean, not a string)",
		"first_line":     "bad argument #1 to 'text.first_line' (string expected, got table)",
		"first_line_max": "bad argument #2 to 'text.first_line' (max must not be negative)",
		"columns":        "bad argument #1 to 'text.columns' (string expected, got nil)",
		"segments":       "bad argument #1 to 'text.segments' (string expected, got table)",
		"segments_gap":   "bad argument #2 to 'text.segments' (gap must be at least 1)",
		"nonblank":       "bad argument #1 to 'text.nonblank' (table expected, got string)",
		"nonblank_line":  "bad argument #1 to 'text.nonblank' (line 2 is a boolean, not a string)",
		"last_nonblank":  "bad argument #2 to 'text.last_nonblank' (number expected, got string)",
		"block":          "bad argument #2 to 'text.block' (number expected, got no value)",
		"block_line":     "bad argument #1 to 'text.block' (line 2 is a number, not a string)",
	} {
		t.Run(fn, func(t *testing.T) {
			require.NoError(t, rt.Ensure(context.Background()))
			err := rt.Call(context.Background(), fn, nil, func(Value) error { return nil })
			var pe *Error
			require.ErrorAs(t, err, &pe)
			require.Contains(t, pe.Message, want)
		})
	}
}

// TestTextIsEverywhere: the helpers need no permission and reach inline
// scripts too.
func TestTextIsEverywhere(t *testing.T) {
	m := manifest.Manifest{Name: "inline", Kind: manifest.KindAdapter, Version: "1", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
	rt, err := New(context.Background(), Config{Manifest: m, Host: testHost, Inline: true, Source: []byte(`local M = {}
function M.run() return {v = ptywright.text.trim(" x ")} end
return M`)})
	require.NoError(t, err)
	defer rt.Close()
	require.Equal(t, "x", callText(t, rt, "run")["v"])
}

// TestTextBudgets: what the helpers build counts against the memory
// budget as the same table built in Lua does, and their work against the
// instruction budget.
func TestTextBudgets(t *testing.T) {
	src := `local M = {}
local text = ptywright.text
local kept
function M.go_split(n) kept = text.split_lines(string.rep("x", n, "\n")) return {v = #kept} end
function M.lua_split(n)
  local s, out = string.rep("x", n, "\n"), {}
  for line in string.gmatch(s, "[^\n]+") do out[#out + 1] = line end
  kept = out
  return {v = #kept}
end
local lines, blanks, big
function M.setup(n)
  lines, blanks = {}, {}
  for i = 1, n do lines[i], blanks[i] = "x", "" end
  big = string.rep("\n", n)
  return {}
end
function M.find() return {v = text.find_line(lines, "y")} end
function M.split_big() return {v = select(2, text.split_lines(big))} end
function M.nonblank() return {v = text.nonblank(blanks)} end
function M.block() return {v = select(2, text.block(lines, 1))} end
function M.segments(n) kept = text.segments(string.rep("x", n, " · ")) return {v = #kept} end
return M`
	const budget = 1 << 20
	t.Run("memory", func(t *testing.T) {
		for _, fn := range []string{"go_split", "lua_split"} {
			rt := textRuntime(t, src, Limits{Memory: budget})
			require.EqualValues(t, 1000, callText(t, rt, fn, 1000)["v"], fn)
			// 100k lines: a 200 KB string, within the budget, but an
			// array of 100k strings is not.
			require.NoError(t, rt.Ensure(context.Background()))
			err := rt.Call(context.Background(), fn, func(a *Args) error { return a.Go(100_000) }, func(Value) error { return nil })
			require.ErrorIs(t, err, ErrMemory, fn)
		}
		rt := textRuntime(t, src, Limits{Memory: budget})
		require.EqualValues(t, 1000, callText(t, rt, "segments", 1000)["v"])
		require.NoError(t, rt.Ensure(context.Background()))
		err := rt.Call(context.Background(), "segments", func(a *Args) error { return a.Go(100_000) }, func(Value) error { return nil })
		require.ErrorIs(t, err, ErrMemory, "segments")
	})
	t.Run("memory held", func(t *testing.T) {
		// What a split keeps is what a Lua-made array of the same lines
		// holds, to within the table's layout.
		held := map[string]int{}
		for _, fn := range []string{"go_split", "lua_split"} {
			rt := textRuntime(t, src, Limits{})
			require.NoError(t, rt.Ensure(context.Background()))
			before, _ := lua.MemoryInUse(rt.l)
			callText(t, rt, fn, 20_000)
			after, _ := lua.MemoryInUse(rt.l)
			held[fn] = after - before
		}
		t.Logf("held: %v", held)
		require.Greater(t, held["go_split"], 20_000*16, "%v", held)
		require.InDelta(t, held["lua_split"], held["go_split"], float64(held["lua_split"])/2, "%v", held)
	})
	t.Run("instructions", func(t *testing.T) {
		// The lines and the string are made under the default budget;
		// only the helpers' calls run under the small one.
		for n, over := range map[int]bool{1000: false, 60_000: true} {
			rt := textRuntime(t, src, Limits{})
			callText(t, rt, "setup", n)
			for _, fn := range []string{"find", "split_big", "nonblank", "block"} {
				restore := rt.SetCallLimits(Limits{Instructions: 100_000, Timeout: time.Minute})
				err := rt.Call(context.Background(), fn, nil, func(Value) error { return nil })
				restore()
				if !over {
					require.NoError(t, err, fn)
					continue
				}
				require.ErrorIs(t, err, ErrBudget, fn)
				require.NotErrorIs(t, err, ErrMemory, fn)
				require.Contains(t, err.Error(), "instruction budget exceeded", fn)
			}
		}
	})
}

// TestTextGuideExample runs the example of plugins/README.md's
// ptywright.text section, so the guide shows code that works.
func TestTextGuideExample(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", "plugins", "README.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(guide), "## String helpers: `ptywright.text`")
	require.True(t, ok, "the guide has no ptywright.text section")
	_, block, ok := strings.Cut(section, "```lua\n")
	require.True(t, ok, "the section has no Lua example")
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)
	rt := textRuntime(t, block+`
local M = {}
function M.run(s) return dialog(s) or {} end
return M`, Limits{})
	screen := "● Bash(rm x)\r\n Do you want to proceed?\n\u00a0❯ 1. Yes\u00a0\n   2. No\n"
	require.Equal(t, map[string]any{"state": "waiting_for_permission", "selected": "1. Yes"}, callText(t, rt, "run", screen))
	require.Empty(t, callText(t, rt, "run", "nothing to see"))
}
