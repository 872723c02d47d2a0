package luart

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// benchScreen is a 24-row Claude Code permission dialog, the kind of text
// the helpers read.
var benchScreen = strings.Join([]string{
	"╭───────────────────────────────────────────────────╮",
	"│ ✻ Welcome to Claude Code!                         │",
	"╰───────────────────────────────────────────────────╯",
	"",
	"❯ run the tests",
	"",
	"● I'll run the test suite.",
	"",
	"● Bash(go test ./...)",
	"  ⎿  Running…",
	"",
	"────────────────────────────────────────────────────",
	" Bash command",
	"",
	"   go test ./...",
	"   Run the tests",
	"",
	" Do you want to proceed?",
	" ❯ 1. Yes",
	"   2. Yes, and don't ask again for go test commands",
	"   3. No, and tell Claude what to do differently (esc)",
	"",
	"\u00a0Esc to cancel · Tab to amend\u00a0",
	"",
}, "\n")

// textBenchPlugin runs each helper, in Go (ptywright.text) and as the
// built-in plugins wrote it in Lua before, over benchScreen: reps passes
// per call, so the host call's own cost is spread thin.
const textBenchPlugin = `local M = {}
local text = ptywright.text
local reps = 20

local function claude_trim(s)
  local a, b = 1, #s
  while a <= b do
    local c = string.byte(s, a)
    if c == 32 or c == 9 then a = a + 1
    elseif c == 194 and string.byte(s, a + 1) == 160 then a = a + 2
    else break end
  end
  while b >= a do
    local c = string.byte(s, b)
    if c == 32 or c == 9 or c == 13 then b = b - 1
    elseif c == 160 and b > a and string.byte(s, b - 1) == 194 then b = b - 2
    else break end
  end
  return string.sub(s, a, b)
end
local function codex_trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end
local function claude_blank(s) return s == "" or string.find(s, "[^ ]") == nil end
local function codex_blank(s) return s:find("%S") == nil end
local function claude_starts(s, p) return string.find(s, p, 1, true) == 1 end
local function codex_starts(s, p) return s:sub(1, #p) == p end
local function codex_split(s)
  local out = {}
  for line in (s .. "\n"):gmatch("([^\n]*)\n") do out[#out + 1] = line end
  return out
end
local function claude_split(s)
  local lines, offsets, n = {}, {}, 0
  for pos, line in string.gmatch(s .. "\n", "()([^\n]*)\n") do
    n = n + 1
    lines[n] = line
    offsets[n] = pos
  end
  return lines, n, offsets
end
local function codex_find_line(lines, needle, from, to)
  for i = from or 1, to or #lines do
    if lines[i]:find(needle, 1, true) then return i end
  end
  return nil
end

local per_line = {
  trim = { go = text.trim, claude = claude_trim, codex = codex_trim },
  is_blank = { go = text.is_blank, claude = claude_blank, codex = codex_blank },
  starts = { go = text.starts, claude = claude_starts, codex = codex_starts },
}
local whole = {
  split_lines = { go = text.split_lines, claude = claude_split, codex = codex_split },
}

-- run returns how many helper calls it made.
function M.run(name, impl, screen)
  local lines = text.split_lines(screen)
  local calls = 0
  for _ = 1, reps do
    if per_line[name] then
      local f = per_line[name][impl]
      for i = 1, #lines do f(lines[i], "❯ ") end
      calls = calls + #lines
    elseif whole[name] then
      whole[name][impl](screen)
      calls = calls + 1
    else
      local f = impl == "go" and text.find_line or codex_find_line
      f(lines, "Do you want to proceed?", 1, #lines)
      calls = calls + 1
    end
  end
  return { calls = calls }
end
return M`

// BenchmarkText compares each ptywright.text helper with the Lua the
// built-in plugins carried before it (claude-code's and codex's copies
// differ): ns/call is one helper call on a 24-row screen (per row for
// trim, is_blank and starts; the whole screen for split_lines and
// find_line).
func BenchmarkText(b *testing.B) {
	rt := textRuntime(b, textBenchPlugin, Limits{})
	ctx := context.Background()
	for _, tc := range []struct{ name, impls string }{
		{"trim", "go claude codex"},
		{"is_blank", "go claude codex"},
		{"starts", "go claude codex"},
		{"split_lines", "go claude codex"},
		{"find_line", "go codex"},
	} {
		for _, impl := range strings.Fields(tc.impls) {
			b.Run(tc.name+"/"+impl, func(b *testing.B) {
				require.NoError(b, rt.Ensure(ctx))
				b.ReportAllocs()
				calls := 0.0
				for b.Loop() {
					err := rt.Call(ctx, "run", func(a *Args) error {
						for _, v := range []string{tc.name, impl, benchScreen} {
							if err := a.Go(v); err != nil {
								return err
							}
						}
						return nil
					}, func(v Value) error {
						n, _ := v.Field("calls").Number()
						calls += n
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/calls, "ns/call")
			})
		}
	}
}
