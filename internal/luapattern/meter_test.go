package luapattern_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	lua "ptywright/internal/golua"
	"ptywright/internal/luapattern"
)

// countingBudget records what it is charged and raises a Lua error once
// the total passes limit (0: never).
type countingBudget struct {
	limit   int
	total   int
	charges int
}

func (b *countingBudget) Charge(l *lua.State, steps int) {
	b.total += steps
	b.charges++
	if b.limit > 0 && b.total > b.limit {
		lua.Errorf(l, "budget exhausted after %d steps", b.total)
	}
}

// catastrophic backtracks for a time exponential in its number of "a*":
// 30^12 attempts, far beyond any test's patience.
const catastrophic = `local s = string.rep("a", 30) .. ":"
local p = string.rep("a*", 12) .. "b"
`

func meteredState(t *testing.T, opts luapattern.Options) *lua.State {
	t.Helper()
	l := lua.NewState()
	lua.OpenLibraries(l)
	require.NoError(t, luapattern.InstallWithOptions(l, opts))
	return l
}

// run runs src and returns the global "result" as a string, or the
// uncaught error's message.
func run(t *testing.T, l *lua.State, src string) (string, error) {
	t.Helper()
	if err := lua.DoString(l, src); err != nil {
		msg, _ := l.ToString(-1)
		l.Pop(1)
		return msg, err
	}
	l.Global("result")
	defer l.Pop(1)
	s, _ := lua.ToStringMeta(l, -1)
	l.Pop(1)
	return s, nil
}

func TestMaxStepsStopsCatastrophicPatterns(t *testing.T) {
	for _, call := range []string{
		"string.find(s, p)",
		"string.match(s, p)",
		"string.gsub(s, p, 'x')",
		"s:gmatch(p)()",
	} {
		t.Run(call, func(t *testing.T) {
			l := meteredState(t, luapattern.Options{MaxSteps: 100_000})
			got, err := run(t, l, catastrophic+"local ok, e = pcall(function() return "+call+" end)\nresult = tostring(ok) .. ' ' .. tostring(e)")
			require.NoError(t, err)
			require.Contains(t, got, "false")
			require.Contains(t, got, "pattern too complex")
		})
	}
}

func TestMaxStepsIsPerCall(t *testing.T) {
	// Each call fits the bound; together they exceed it many times.
	l := meteredState(t, luapattern.Options{MaxSteps: 1000})
	got, err := run(t, l, `local n = 0
for i = 1, 200 do if string.find(string.rep("x", 100) .. "y", "x*y") then n = n + 1 end end
for w in string.rep("ab ", 500):gmatch("%a+") do n = n + 1 end
result = n`)
	require.NoError(t, err)
	require.Equal(t, "700", got)
}

func TestBudgetIsChargedAndCanStopMatching(t *testing.T) {
	b := &countingBudget{limit: 50_000}
	l := meteredState(t, luapattern.Options{Budget: b})
	msg, err := run(t, l, catastrophic+"result = string.find(s, p)")
	require.Error(t, err)
	require.Contains(t, msg, "budget exhausted")
	require.Greater(t, b.total, 50_000)
	require.LessOrEqual(t, b.total, 50_000+luapattern.ChargeInterval+1, "charged in chunks of ChargeInterval")

	// pcall sees the budget's own error, not "pattern too complex".
	b = &countingBudget{limit: 50_000}
	l = meteredState(t, luapattern.Options{Budget: b})
	got, err := run(t, l, catastrophic+"local ok, e = pcall(string.match, s, p) result = e")
	require.NoError(t, err)
	require.Contains(t, got, "budget exhausted")
}

func TestBudgetChargesSmallCallsWhenTheyEnd(t *testing.T) {
	b := &countingBudget{}
	l := meteredState(t, luapattern.Options{Budget: b})
	_, err := run(t, l, `for i = 1, 100 do string.match("key=value", "(%w+)=(%w+)") end`)
	require.NoError(t, err)
	require.GreaterOrEqual(t, b.charges, 100, "every call reports its steps")
	require.Greater(t, b.total, 100*9)

	// A plain find does no matcher work and is not charged.
	b2 := &countingBudget{}
	l = meteredState(t, luapattern.Options{Budget: b2})
	_, err = run(t, l, `string.find("hello", "ll")`)
	require.NoError(t, err)
	require.Zero(t, b2.total)
}

func TestBudgetChargesGsubOutput(t *testing.T) {
	// One match per byte, each replaced by 1000 bytes: the output is what
	// costs, and it is charged.
	b := &countingBudget{}
	l := meteredState(t, luapattern.Options{Budget: b})
	got, err := run(t, l, `local out = string.gsub(string.rep("x", 100), ".", string.rep("y", 1000)) result = #out`)
	require.NoError(t, err)
	require.Equal(t, "100000", got)
	require.Greater(t, b.total, 100_000/16)
}

func TestUnboundedOptionsMatchInstall(t *testing.T) {
	l := meteredState(t, luapattern.Options{})
	got, err := run(t, l, `result = table.concat({string.match("x = 10", "(%w+) = (%w+)")}, ",") .. select(2, string.gsub("a b c", "%a", "%0%0"))`)
	require.NoError(t, err)
	require.Equal(t, "x,103", got)
}

// memoryBudget records the buffers gsub announces and refuses any one
// larger than limit.
type memoryBudget struct {
	limit   int
	largest int
	calls   int
}

func (b *memoryBudget) Alloc(l *lua.State, n int) {
	b.calls++
	b.largest = max(b.largest, n)
	if n > b.limit {
		lua.Errorf(l, "refused %d bytes", n)
	}
}

func TestMemoryBudgetSeesGsubBuffersBeforeTheyGrow(t *testing.T) {
	for _, tt := range []struct{ name, call string }{
		{"replacement string", `string.gsub(string.rep("x", 1000), "x", string.rep("y", 10000))`},
		{"capture amplification", `string.gsub(string.rep("x", 10000), ".*", string.rep("%0", 1000))`},
		{"function replacement", `string.gsub(string.rep("x", 1000), "x", function() return string.rep("y", 10000) end)`},
		{"table replacement", `string.gsub(string.rep("x", 1000), "x", {x = string.rep("y", 10000)})`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &memoryBudget{limit: 1 << 20}
			l := meteredState(t, luapattern.Options{Memory: b})
			msg, err := run(t, l, "result = "+tt.call)
			require.Error(t, err)
			require.Contains(t, msg, "refused")
			require.Greater(t, b.largest, 1<<20, "the refused buffer was announced")
			require.LessOrEqual(t, b.largest, 2<<20+10000, "announced before it grew past twice the limit")
		})
	}
	// Under the limit, gsub works as ever and the buffer is announced.
	b := &memoryBudget{limit: 1 << 20}
	l := meteredState(t, luapattern.Options{Memory: b})
	got, err := run(t, l, `result = (string.gsub("hello world", "o", "0"))`)
	require.NoError(t, err)
	require.Equal(t, "hell0 w0rld", got)
	require.Positive(t, b.calls)
}
