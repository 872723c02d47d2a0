package luapattern_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/luapattern"
)

// txt and pos build expected captures.
func txt(s string) luapattern.Capture { return luapattern.Capture{Text: s} }
func pos(p int) luapattern.Capture    { return luapattern.Capture{Pos: p} }

func TestFind(t *testing.T) {
	tests := []struct {
		name       string
		s, pattern string
		init       int
		ok         bool
		start, end int
		caps       []luapattern.Capture
	}{
		{name: "plain", s: "hello world", pattern: "o w", init: 1, ok: true, start: 5, end: 7},
		{name: "plain not found", s: "hello", pattern: "xyz", init: 1},
		{name: "empty pattern", s: "hello", pattern: "", init: 1, ok: true, start: 1, end: 0},
		{name: "empty pattern at end", s: "hello", pattern: "", init: 6, ok: true, start: 6, end: 5},
		{name: "init beyond end", s: "hello", pattern: "", init: 7},
		{name: "negative init", s: "hello", pattern: "l", init: -2, ok: true, start: 4, end: 4},
		{name: "very negative init", s: "hello", pattern: "h", init: -100, ok: true, start: 1, end: 1},
		{name: "zero init", s: "hello", pattern: "h", init: 0, ok: true, start: 1, end: 1},
		{name: "min int init", s: "hello", pattern: "h+", init: math.MinInt, ok: true, start: 1, end: 1},
		{name: "max int init", s: "hello", pattern: "h+", init: math.MaxInt},
		{name: "class plus", s: "hello world", pattern: "l+", init: 1, ok: true, start: 3, end: 4},
		{name: "captures", s: "x = 10", pattern: "(%w+) = (%w+)", init: 1, ok: true, start: 1, end: 6,
			caps: []luapattern.Capture{txt("x"), txt("10")}},
		{name: "position captures", s: "key=val", pattern: "()=()", init: 1, ok: true, start: 4, end: 4,
			caps: []luapattern.Capture{pos(4), pos(5)}},
		{name: "anchor", s: "abc", pattern: "^b", init: 1},
		{name: "anchor at init", s: "abc", pattern: "^b", init: 2, ok: true, start: 2, end: 2},
		{name: "dollar", s: "abc", pattern: "c$", init: 1, ok: true, start: 3, end: 3},
		{name: "dollar not last is literal", s: "a$c", pattern: "$c", init: 1, ok: true, start: 2, end: 3},
		{name: "caret not first is literal", s: "a^b", pattern: "a^b", init: 1, ok: true, start: 1, end: 3},
		{name: "balance", s: "f(a(b)c) d", pattern: "%b()", init: 1, ok: true, start: 2, end: 8},
		{name: "frontier", s: "THE (quick) fox", pattern: "%f[%a]%a+", init: 4, ok: true, start: 6, end: 10},
		{name: "frontier at end", s: "abc", pattern: "%f[%W]", init: 1, ok: true, start: 4, end: 3},
		{name: "back-reference", s: "xyzzy", pattern: "(%a)%1", init: 1, ok: true, start: 3, end: 4,
			caps: []luapattern.Capture{txt("z")}},
		{name: "back-reference to a position fails", s: "aa", pattern: "()%1", init: 1},
		{name: "lazy", s: "<a><b>", pattern: "<(.-)>", init: 1, ok: true, start: 1, end: 3,
			caps: []luapattern.Capture{txt("a")}},
		{name: "greedy", s: "<a><b>", pattern: "<(.*)>", init: 1, ok: true, start: 1, end: 6,
			caps: []luapattern.Capture{txt("a><b")}},
		{name: "set with ] first", s: "a]b", pattern: "[]]", init: 1, ok: true, start: 2, end: 2},
		{name: "complement set", s: "abc1", pattern: "[^%a]", init: 1, ok: true, start: 4, end: 4},
		{name: "NUL byte", s: "a\x00b", pattern: "%z", init: 1, ok: true, start: 2, end: 2},
		{name: "high bytes are in no class", s: "caf\xc3\xa9", pattern: "%A", init: 1, ok: true, start: 4, end: 4},
		{name: "literal first item skip", s: "xxxxtokens: 12", pattern: "tokens: (%d+)", init: 1, ok: true, start: 5, end: 14,
			caps: []luapattern.Capture{txt("12")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, end, caps, ok, err := luapattern.Find(tt.s, tt.pattern, tt.init)
			require.NoError(t, err)
			require.Equal(t, tt.ok, ok)
			if !tt.ok {
				return
			}
			require.Equal(t, tt.start, start, "start")
			require.Equal(t, tt.end, end, "end")
			require.Equal(t, tt.caps, caps)
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		s, pattern string
		init       int
		want       []luapattern.Capture // nil: no match
	}{
		{"hello world", "%a+", 1, []luapattern.Capture{txt("hello")}},
		{"hello world", "%a+", 6, []luapattern.Capture{txt("world")}},
		{"hello", ".", -1, []luapattern.Capture{txt("o")}},
		{"hello", "x", 1, nil},
		{"hello", "()ll()", 1, []luapattern.Capture{pos(3), pos(5)}},
		{"hello world", "((%w+) (%w+))", 1, []luapattern.Capture{txt("hello world"), txt("hello"), txt("world")}},
		{"  trim me  ", "^%s*(.-)%s*$", 1, []luapattern.Capture{txt("trim me")}},
		{"", "()", 1, []luapattern.Capture{pos(1)}},
		{"aab", "^a-", 1, []luapattern.Capture{txt("")}},
		{"abab", "((a)b)%2", 1, []luapattern.Capture{txt("ab"), txt("a")}},
		{"abba", "((a)b)%2", 1, nil},
		{"1,234 tokens", "(%d[%d,]*) tokens", 1, []luapattern.Capture{txt("1,234")}},
	}
	for _, tt := range tests {
		t.Run(tt.s+"~"+tt.pattern, func(t *testing.T) {
			caps, ok, err := luapattern.Match(tt.s, tt.pattern, tt.init)
			require.NoError(t, err)
			require.Equal(t, tt.want != nil, ok)
			require.Equal(t, tt.want, caps)
		})
	}
}

func TestPatternErrors(t *testing.T) {
	tests := []struct {
		s, pattern string
		kind       error
		msg        string
	}{
		{"abc", "%", luapattern.ErrMalformedPattern, "malformed pattern (ends with '%')"},
		{"abc", "[a", luapattern.ErrMalformedPattern, "malformed pattern (missing ']')"},
		{"abc", "[%]", luapattern.ErrMalformedPattern, "malformed pattern (missing ']')"},
		{"abc", "[^]", luapattern.ErrMalformedPattern, "malformed pattern (missing ']')"},
		{"abc", "%b", luapattern.ErrMalformedPattern, "malformed pattern (missing arguments to '%b')"},
		{"abc", "%fa", luapattern.ErrMalformedPattern, "missing '[' after '%f' in pattern"},
		{"abc", "a)", luapattern.ErrInvalidCapture, "invalid pattern capture"},
		{"abc", "(a", luapattern.ErrInvalidCapture, "unfinished capture"},
		{"abc", "%1", luapattern.ErrInvalidCapture, "invalid capture index %1"},
		{"abc", "%0", luapattern.ErrInvalidCapture, "invalid capture index %0"},
		{"abc", "(a%1)", luapattern.ErrInvalidCapture, "invalid capture index %1"},
		{"x", strings.Repeat("()", 33), luapattern.ErrTooManyCaptures, "too many captures"},
		{strings.Repeat("a", 300), strings.Repeat("a?", 300), luapattern.ErrTooComplex, "pattern too complex"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			_, ok, err := luapattern.Match(tt.s, tt.pattern, 1)
			require.False(t, ok)
			require.ErrorIs(t, err, tt.kind)
			var pe *luapattern.Error
			require.True(t, errors.As(err, &pe))
			require.Equal(t, tt.msg, pe.Msg)
			require.Equal(t, tt.pattern, pe.Pattern)
			require.Contains(t, err.Error(), tt.msg)
		})
	}
}

// A pattern error only surfaces where Lua raises it: a part of the pattern
// that is never reached, or a capture check after a failed match, is not
// an error.
func TestPatternErrorsAreLazy(t *testing.T) {
	for _, pattern := range []string{"x(", "x%", "x[", "(x", "x%1"} {
		_, ok, err := luapattern.Match("abc", pattern, 1)
		require.NoError(t, err, pattern)
		require.False(t, ok, pattern)
	}
}

func TestGMatch(t *testing.T) {
	tests := []struct {
		s, pattern string
		want       [][]luapattern.Capture
	}{
		{"one two", "%a+", [][]luapattern.Capture{{txt("one")}, {txt("two")}}},
		{"a=1, b=2", "(%w+)=(%w+)", [][]luapattern.Capture{{txt("a"), txt("1")}, {txt("b"), txt("2")}}},
		{"ab", "()", [][]luapattern.Capture{{pos(1)}, {pos(2)}, {pos(3)}}},
		{"abc", "%a*", [][]luapattern.Capture{{txt("abc")}, {txt("")}}},
		{"^a^a", "^a", [][]luapattern.Capture{{txt("^a")}, {txt("^a")}}},
		{"abc", "x", nil},
	}
	for _, tt := range tests {
		t.Run(tt.s+"~"+tt.pattern, func(t *testing.T) {
			it := luapattern.GMatch(tt.s, tt.pattern)
			var got [][]luapattern.Capture
			for {
				caps, ok, err := it.Next()
				require.NoError(t, err)
				if !ok {
					break
				}
				got = append(got, caps)
			}
			require.Equal(t, tt.want, got)
			_, ok, err := it.Next()
			require.NoError(t, err)
			require.False(t, ok, "an exhausted iterator stays exhausted")
		})
	}
}

func TestGMatchError(t *testing.T) {
	_, ok, err := luapattern.GMatch("abc", "(a").Next()
	require.False(t, ok)
	require.ErrorIs(t, err, luapattern.ErrInvalidCapture)
}

func TestGsub(t *testing.T) {
	tests := []struct {
		s, pattern, repl string
		n                int
		want             string
		count            int
	}{
		{"hello world", "o", "0", -1, "hell0 w0rld", 2},
		{"hello world", "(o)", "[%1]", -1, "hell[o] w[o]rld", 2},
		{"hello world", "o", "%0%0", -1, "helloo woorld", 2},
		{"hello world", "o", "%%", -1, "hell% w%rld", 2},
		{"hello world", "l", "L", 2, "heLLo world", 2},
		{"hello world", "l", "L", 0, "hello world", 0},
		{"abc", "%w", "%1", -1, "abc", 3},
		{"abc", "()", "%1", -1, "1a2b3c4", 4},
		{"hello", "", "-", -1, "-h-e-l-l-o-", 6},
		{"hello", "^", ">", -1, ">hello", 1},
		{"aaa", "^a", "b", -1, "baa", 1},
		{"abc", "%w*", "-", -1, "--", 2},
		{"$name", "%$(%w+)", "<%1>", -1, "<name>", 1},
		{"", "", "x", -1, "x", 1},
	}
	for _, tt := range tests {
		t.Run(tt.s+"~"+tt.pattern+"~"+tt.repl, func(t *testing.T) {
			got, count, err := luapattern.Gsub(tt.s, tt.pattern, tt.repl, tt.n)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			require.Equal(t, tt.count, count)
		})
	}
}

func TestGsubErrors(t *testing.T) {
	tests := []struct {
		pattern, repl string
		kind          error
		msg           string
	}{
		{"%w", "%2", luapattern.ErrInvalidCapture, "invalid capture index"},
		{"a", "%x", luapattern.ErrInvalidReplacement, "invalid use of '%' in replacement string"},
		{"a", "%", luapattern.ErrInvalidReplacement, "invalid use of '%' in replacement string"},
		{"(a", "%1", luapattern.ErrInvalidCapture, "unfinished capture"},
		{"[", "x", luapattern.ErrMalformedPattern, "malformed pattern (missing ']')"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+"~"+tt.repl, func(t *testing.T) {
			_, _, err := luapattern.Gsub("abc", tt.pattern, tt.repl, -1)
			require.ErrorIs(t, err, tt.kind)
			var pe *luapattern.Error
			require.ErrorAs(t, err, &pe)
			require.Equal(t, tt.msg, pe.Msg)
		})
	}
}

func TestCaptureString(t *testing.T) {
	require.Equal(t, "abc", txt("abc").String())
	require.Equal(t, "7", pos(7).String())
	require.True(t, pos(1).IsPosition())
	require.False(t, txt("").IsPosition())
}
