package luapattern_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	lua "ptywright/internal/golua"
	"ptywright/internal/luapattern"
)

// pluginScreen is about 2 KB of agent-TUI text with the token count a
// plugin looks for on its last line.
func pluginScreen() string {
	var b strings.Builder
	for b.Len() < 2000 {
		b.WriteString("│ > Reading file src/main.go (42 lines) ... done in 0.3s      │\n")
	}
	b.WriteString("  esc to interrupt · 12345 tokens · ctrl+t to show todos\n")
	return b.String()
}

const tokenPattern = "(%d+) tokens"

func BenchmarkMatchTokens(b *testing.B) {
	s := pluginScreen()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		caps, ok, err := luapattern.Match(s, tokenPattern, 1)
		if err != nil || !ok || caps[0].Text != "12345" {
			b.Fatalf("Match = %v, %v, %v", caps, ok, err)
		}
	}
}

// BenchmarkLuaMatchTokens is the same match as a plugin runs it: a Lua
// function calling s:match through go-lua.
func BenchmarkLuaMatchTokens(b *testing.B) {
	l := lua.NewState()
	lua.OpenLibraries(l)
	require.NoError(b, luapattern.Install(l))
	require.NoError(b, lua.DoString(l, `function tokens(s) return tonumber(s:match("`+tokenPattern+`")) end`))
	s := pluginScreen()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		l.Global("tokens")
		l.PushString(s)
		l.Call(1, 1)
		n, _ := l.ToInteger(-1)
		l.Pop(1)
		if n != 12345 {
			b.Fatalf("tokens = %d", n)
		}
	}
}
