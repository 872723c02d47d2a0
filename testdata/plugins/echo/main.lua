-- The echo test plugin: an adapter over `cat` on a PTY. Whatever is sent
-- shows twice: once echoed by the terminal as it is typed, once written
-- back by cat after Enter.

local M = {}

local action = ptywright.action
local matcher = ptywright.matcher

-- The adapter instance remembers what it sent last; a predicate running in
-- the registry's own instance never sees this.
local last_sent = nil

-- count_lines returns how many lines of text are exactly line (trailing
-- blanks ignored).
local function count_lines(text, line)
  local n = 0
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do
    if l:gsub("%s+$", "") == line then
      n = n + 1
    end
  end
  return n
end

-- regex_quote escapes text for a Go RE2 expression.
local function regex_quote(text)
  return (text:gsub("[%^%$%(%)%.%[%]%*%+%-%?{}|\\]", "\\%0"))
end

function M.classify(ctx)
  local body = ctx.body_text or ""
  if last_sent ~= nil then
    local seen = count_lines(body, last_sent)
    if seen >= 2 then
      return {
        state = "echoed",
        confidence = 0.9,
        evidence = string.format("%q typed and echoed (%d lines)", last_sent, seen),
        metadata = { text = last_sent, lines = seen },
        rule = "echo.echoed",
      }
    end
    return {
      state = "idle",
      confidence = 0.5,
      evidence = string.format("%q seen on %d line(s), waiting for the echo", last_sent, seen),
      rule = "echo.awaiting_echo",
      considered = ctx.explain and { { state = "echoed", rule = "echo.echoed", reason = "fewer than 2 lines show the text" } } or nil,
    }
  end
  return { state = "idle", confidence = 0.8, evidence = "nothing sent yet", rule = "echo.nothing_sent" }
end

function M.send_text(params)
  local text = params.text
  if type(text) ~= "string" or text == "" then
    ptywright.invalid_params("send_text: params.text must be a non-empty string")
  end
  if text:find("\n", 1, true) then
    error("send_text: params.text must be a single line")
  end
  last_sent = text
  return {
    actions = { action.text(text), action.key("enter") },
    last_intent = "sent",
    -- The receipt confirms the line once cat has written it back.
    expect = { states = { "echoed" } },
  }
end

function M.interrupt(_params)
  return { actions = { action.interrupt() }, last_intent = "interrupted" }
end

-- wait_turn_matcher waits for the last text to show twice on consecutive
-- lines and the screen to settle.
function M.wait_turn_matcher(params)
  local stable = matcher.screen_stable(params.completed_turn_stable_ms or 300)
  if last_sent == nil then
    return stable
  end
  local q = regex_quote(last_sent)
  return matcher.all({
    matcher.screen_regex("(?m)^" .. q .. "\\s*\\n" .. q .. "\\s*$"),
    stable,
  })
end

-- wait_echo_matcher waits, through the has_text predicate, for text to
-- show on two lines.
function M.wait_echo_matcher(params)
  if type(params.text) ~= "string" or params.text == "" then
    error("wait_echo_matcher: params.text must be a non-empty string")
  end
  return matcher.lua("echo", "has_text", { text = params.text, lines = 2 })
end

-- has_text is a predicate for lua matchers: params.text on at least
-- params.lines lines (default 1) of the screen.
function M.has_text(input)
  local text = input.params.text
  local want = input.params.lines or 1
  if type(text) ~= "string" then
    return false
  end
  local seen = count_lines(input.screen, text)
  return {
    matched = seen >= want,
    evidence = { text = text, lines = seen, sequence = input.sequence },
    capture = text,
  }
end

function M.describe()
  return {
    intents = {
      { name = "send_text", description = "type a line and press Enter", params = { text = "string" } },
      { name = "interrupt", description = "send Ctrl-C" },
    },
    wait_matchers = {
      { name = "wait_turn_matcher", description = "the last line sent shows twice and the screen settles" },
      { name = "wait_echo_matcher", description = "params.text shows on two lines", params = { text = "string" } },
    },
    states = {
      { name = "idle", description = "nothing sent, or the echo has not arrived" },
      { name = "echoed", description = "the last line sent shows typed and echoed" },
    },
    predicates = { "has_text" },
  }
end

return M
