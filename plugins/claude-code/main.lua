-- plugins/claude-code/main.lua: the built-in Claude Code adapter.
--
-- It reads Claude Code's screen (as of 2.1.330; see
-- testdata/fixtures/claude_code/CAPTURES.md for what each screen looks like
-- and where the program disagrees with the spec) and names its state, and it
-- turns intents into the keys that really work on that screen.
--
-- How the screen is read. Claude Code renders inline: the transcript grows
-- from the top, and below it sits either
--   * the live prompt box: a full-width "─" rule, the input row "❯" + U+00A0
--     (a no-break space; echoed old prompts use a plain space), a second
--     rule, then the status row ("⏸ manual mode on · esc to interrupt"), or
--   * a dialog or panel that replaces the box (trust, permission, question,
--     plan approval, /model, /usage, ...).
-- Until the screen has filled, blank rows follow the status row, so the
-- host's "bottom three rows" status split is often blank: this classifier
-- locates the box itself in ctx.screen. Dialog words are only looked for
-- below the last transcript item (an echoed prompt "❯ " or an answer "● " at
-- column 0), and only when no live prompt box is on screen, so an answer
-- that quotes "Do you want to proceed?" never reads as a dialog.
--
-- Intents that pick a menu entry (choose_option by label, approve_trust,
-- deny_trust, approve on the API-key page) use the menu the most recent
-- classify call saw: its options, which one the cursor is on, and whether
-- the options are numbered (a digit selects at once) or not (arrows, then
-- Enter).
--
-- The parsing contract: every assessment carries parser_metadata (preset,
-- output family, the version the banner showed) and anomalies for an
-- unknown Claude Code version (unknown_version_floor_used), a banner that
-- changed (baseline_invalidated), a version pinned by the parser_override
-- intent (preset_override_used), a screen that matched no state
-- (unrecognized_screen) and a state reached by a catch-all rule
-- (state_fallback); project(ctx) returns the dialog projection.

local M = {}

local action = ptywright.action
local matcher = ptywright.matcher

-- Constants -----------------------------------------------------------------

local NBSP = "\194\160"
local CURSOR = "❯"
local RULE10 = "──────────"
local DASH10 = "╌╌╌╌╌╌╌╌╌╌"
local PANEL5 = "▔▔▔▔▔"
local ELLIPSIS = "…"
local SPINNER_GLYPHS = { "·", "✢", "✳", "✶", "✻", "✽", "*" }
-- Every intent that types marks the transcript here first, so a wait can
-- tell the screen it is looking at came after the input (see
-- output_since_input).
local INPUT_MARKER = "claude-code.input"

-- Placeholder texts Claude Code dims in an empty input row; in plain text
-- they look like typed input.
local PLACEHOLDERS = {
  "Resend your message to try again",
  "Once fixed, resend your message",
  "Press up to edit queued messages",
  "Run /rewind to go back",
}

-- Permission dialog titles and the tool each one asks about.
local TOOL_TITLES = {
  ["Bash command"] = "Bash",
  ["Create file"] = "Write",
  ["Overwrite file"] = "Write",
  ["Edit file"] = "Edit",
  ["Read file"] = "Read",
  ["Edit notebook"] = "NotebookEdit",
  ["Fetch"] = "WebFetch",
  ["Web fetch"] = "WebFetch",
  ["Web search"] = "WebSearch",
}

-- The tool kinds of metadata.dialog.tool, by Claude Code's tool name.
local TOOL_KINDS = {
  Bash = "shell", Write = "write", Edit = "edit", NotebookEdit = "edit", Read = "read",
  WebFetch = "web_fetch", WebSearch = "web_search", MCP = "mcp",
}
-- The tools whose dialog names a file under its title.
local FILE_TOOLS = { Write = true, Edit = true, NotebookEdit = true, Read = true }

-- Status-row words and the --permission-mode value they stand for.
local MODES = {
  { "auto mode on", "auto" },
  { "manual mode on", "manual" },
  { "accept edits on", "acceptEdits" },
  { "plan mode on", "plan" },
  { "bypass permissions on", "bypassPermissions" },
  { "don't ask mode on", "dontAsk" },
}

-- State kept between calls on one adapter: the menu the last classify saw
-- (for label-based intents) and the last model and mode seen on screen (the
-- model is only in the logo header, which scrolls away).
local last_menu = nil

-- last_state and last_input: the last classification's state and the text
-- typed in the prompt box then (nil when empty), for send_prompt.
local last_state, last_input = nil, nil

-- submitted_line is how the last prompt send_prompt submitted shows in the
-- history once Claude Code took it: "❯ " (plain space) and its first line,
-- cut short of where the screen could wrap it.
local submitted_line = nil

local function history_line(prompt)
  local first = ptywright.text.first_line(prompt, 40)
  if first == "" then
    return nil
  end
  return "❯ " .. first
end
local last_model = nil
local last_mode = nil

-- String helpers --------------------------------------------------------------

-- Shared helpers from the SDK: ptywright.text, used by every built-in
-- plugin (trim and is_blank take Lua's %s and the no-break space U+00A0 as
-- white space; starts, contains and after take one string or a list of
-- them; find_line(lines, needle, from?, to?) is a plain search).
local text = ptywright.text
local starts = text.starts
local has = text.contains
local after = text.after
local trim = text.trim
local is_blank = text.is_blank
local split_lines = text.split_lines
local find_line = text.find_line
local nonblank = text.nonblank
local last_nonblank = text.last_nonblank

-- starts_after_indent reports whether s, after leading spaces, begins with p.
local function starts_after_indent(s, p)
  local j = string.find(s, "[^ ]")
  return j ~= nil and string.find(s, p, j, true) == j
end

-- indent counts leading spaces and returns it with the rest of the line.
local function indent(s)
  local j = string.find(s, "[^ ]")
  if not j then
    return #s, ""
  elseif j == 1 then
    return 0, s
  end
  return j - 1, string.sub(s, j)
end

local function nbsp_to_space(s)
  return (string.gsub(s, NBSP, " "))
end

-- rows_with returns, in order, the rows in a..b whose text contains p.
local function rows_with(lines, p, a, b)
  local out = {}
  local k = find_line(lines, p, a, b)
  while k do
    out[#out + 1] = k
    k = find_line(lines, p, k + 1, b)
  end
  return out
end

-- Lines are told apart by their first character, read as bytes (no
-- allocation): lead(s) is its first three bytes as one number.
local function lead(s)
  local a, b, c = string.byte(s, 1, 3)
  return (a or 0) * 65536 + (b or 0) * 256 + (c or 0)
end
local LEAD_RULE = 0xE29480 -- ─
local LEAD_PANEL = 0xE29694 -- ▔
local LEAD_CURSOR = 0xE29DAF -- ❯
local LEAD_BULLET = 0xE2978F -- ●

local function is_rule(s)
  return lead(s) == LEAD_RULE and starts(s, RULE10)
end

local function is_panel(s)
  return lead(s) == LEAD_PANEL and starts(s, PANEL5)
end

-- after_glyph returns the text after a leading spinner glyph and a space.
local SPINNER_HEADS = {}
for i, g in ipairs(SPINNER_GLYPHS) do
  SPINNER_HEADS[i] = g .. " "
end
local function after_glyph(s)
  return after(s, SPINNER_HEADS)
end

-- is_done_line: "✻ Crunched for 0s · done 1:08 AM".
local function is_done_line(s)
  local rest = after_glyph(s)
  return rest ~= nil and has(rest, " for ") and has(rest, " · done")
end

-- spinner_info reads a spinner row: "· Undulating…", "✽ Processing… (2s ·
-- ↓ 40 tokens)", or a retry banner "✻ 401 invalid x-api-key · retrying in
-- 2s · attempt 3/10".
local function spinner_info(s)
  local rest = after_glyph(s)
  if not rest then
    return nil
  end
  if has(rest, "retrying in") then
    local secs = string.match(rest, "retrying in (%d+)s")
    local att, max = string.match(rest, "attempt (%d+)/(%d+)")
    local msg = string.match(rest, "^(.-) · retrying in") or rest
    return { retry = true, message = msg, retry_after_s = tonumber(secs),
      attempt = tonumber(att), max_attempts = tonumber(max) }
  end
  local verb = string.match(rest, "^(%S-)" .. ELLIPSIS)
  if verb and verb ~= "" then
    local info = { verb = verb }
    local paren = string.match(rest, ELLIPSIS .. " %((.-)%)")
    if paren then
      info.elapsed = string.match(paren, "^([%dhms ]-%d+s)")
      local tokens = string.match(paren, "(%d+%.?%d*k?) tokens")
      info.tokens = tokens
      info.thinking = has(paren, "thinking") or nil
    end
    return info
  end
  return nil
end

local hash32 = text.hash

-- Screen layout ---------------------------------------------------------------

-- find_box locates the live prompt box, searching upwards from the bottom.
local function find_box(lines, last)
  local rows = rows_with(lines, CURSOR, 2, last)
  for r = #rows, 1, -1 do
    local i = rows[r]
    local l = lines[i]
    if lead(l) == LEAD_CURSOR and is_rule(lines[i - 1]) then
      local rest = string.sub(l, #CURSOR + 1)
      local input
      if rest == "" then
        input = ""
      elseif starts(rest, NBSP) then
        input = string.sub(rest, #NBSP + 1)
      elseif starts(rest, " ") then
        input = string.sub(rest, 2)
      end
      if input then
        local stop = i + 12
        if stop > last then
          stop = last
        end
        for j = i + 1, stop do
          if is_rule(lines[j]) then
            local parts = { input }
            for k = i + 1, j - 1 do
              parts[#parts + 1] = trim(lines[k])
            end
            return { top = i - 1, input_row = i, bottom = j, input = trim(table.concat(parts, "\n")) }
          end
        end
      end
    end
  end
  return nil
end

-- is_echo: a submitted prompt in the transcript, "❯ text" at column 0 (an
-- option row "❯ 1. hi" of a question dialog is not one).
local ECHO = CURSOR .. " "
local OPTION_ROW = "^" .. CURSOR .. " %d+%. "
local function is_echo(l)
  return lead(l) == LEAD_CURSOR and starts(l, ECHO) and not string.find(l, OPTION_ROW)
end

-- content_end is the last transcript item (echo, answer or turn-end line)
-- above row limit; dialogs live below it.
local function is_bullet(l)
  return starts(l, "● ")
end

-- CONTENT_PROBES find transcript items: a text every such row contains and
-- the test the row must pass. (Closures are made once: creating one per
-- call costs more than the search in go-lua.)
local CONTENT_PROBES = { { "❯ ", is_echo }, { "● ", is_bullet }, { " · done", is_done_line } }

local function content_end(lines, limit)
  local best = 0
  for _, probe in ipairs(CONTENT_PROBES) do
    local rows = rows_with(lines, probe[1], best + 1, limit)
    for i = #rows, 1, -1 do
      if probe[2](lines[rows[i]]) then
        best = rows[i]
        break
      end
    end
  end
  return best
end

local function parse_mode(status)
  for _, m in ipairs(MODES) do
    if has(status, m[1]) then
      return m[2]
    end
  end
  return nil
end

-- MODEL_SOURCES are where the model name shows: the logo header, and the
-- result of /model. The last one on screen wins.
local MODEL_SOURCES = {
  { "▝▜██████▀", { "▝▜██████▀%s+(.-) · " } },
  { "Kept model as", { "Kept model as (.-) %(", "Kept model as (.+)$" } },
  { "Set model to", { "Set model to (.-) %(", "Set model to (.+)$" } },
}

local function scan_model(_screen, lines, last)
  local model, at = nil, 0
  for _, src in ipairs(MODEL_SOURCES) do
    local rows = rows_with(lines, src[1], at + 1, last)
    for i = #rows, 1, -1 do
      local m
      for _, pat in ipairs(src[2]) do
        m = m or string.match(lines[rows[i]], pat)
      end
      if m then
        model, at = trim(m), rows[i]
        break
      end
    end
  end
  return model
end

-- Menus -------------------------------------------------------------------------

-- parse_numbered reads "❯ 1. Label" / "  2. Label" rows between rows a and b.
-- cont says what a deeper-indented line after an option continues: the
-- "label" (permission options wrap) or the "description" (question and
-- model options put one under the label).
local function parse_numbered(lines, a, b, cont, columns)
  local opts, cur = {}, nil
  for k = a, b do
    local ind, t = indent(lines[k])
    local selected = false
    if starts(t, CURSOR .. " ") then
      selected = true
      t = string.sub(t, #CURSOR + 2)
    end
    local num, rest = string.match(t, "^(%d+)%. (.*)$")
    if num then
      local label, desc
      if columns then
        label, desc = text.columns(rest) -- "Label  Description"
      else
        label = trim(rest)
      end
      local current = nil
      if has(label, " ✔") then
        label = trim((string.gsub(label, " ✔", "")))
        current = true
      end
      cur = { index = tonumber(num), label = nbsp_to_space(label), description = desc,
        selected = selected, current = current, indent = ind }
      opts[#opts + 1] = cur
    elseif cur and t ~= "" and ind > cur.indent + 1 and not is_rule(t) then
      if cont == "label" and not cur.description then
        cur.label = cur.label .. " " .. trim(t)
      elseif cur.description then
        cur.description = cur.description .. " " .. trim(t)
      else
        cur.description = trim(t)
      end
    elseif t ~= "" and not has(t, "more") then
      cur = nil
    end
  end
  local sel = nil
  for i, o in ipairs(opts) do
    o.indent = nil
    if o.selected then
      sel = i
    end
  end
  return opts, sel
end

-- parse_unnumbered reads a cursor menu without numbers ("❯ No, exit" /
-- "  Yes, I trust this folder"): the block of non-blank rows around the
-- cursor row found in rows a..b.
local function parse_unnumbered(lines, a, b)
  local c
  for k = a, b do
    local _, t = indent(lines[k])
    if starts(t, CURSOR .. " ") then
      c = k
      break
    end
  end
  if not c then
    return {}, nil
  end
  local first, last = text.block(lines, c, a, b)
  local opts, sel = {}, nil
  for k = first, last do
    local _, t = indent(lines[k])
    local selected = false
    if starts(t, CURSOR .. " ") then
      selected = true
      t = string.sub(t, #CURSOR + 2)
    end
    t = trim(t)
    local current = nil
    if starts(t, "✔ ") then
      t = trim(string.sub(t, #"✔ " + 1))
      current = true
    end
    opts[#opts + 1] = { index = #opts + 1, label = t, selected = selected, current = current }
    if selected then
      sel = #opts
    end
  end
  return opts, sel
end

-- parse_menu reads the menu in rows a..b of a dialog that draws it either
-- way: numbered when it has numbers (numbered is true), else a cursor menu.
local function parse_menu(lines, a, b)
  local opts, sel = parse_numbered(lines, a, b, "label", false)
  if #opts > 0 then
    return opts, sel, true
  end
  opts, sel = parse_unnumbered(lines, a, b)
  return opts, sel, false
end

-- find_row returns the first row in a..b whose text, after its indent,
-- starts with p.
local function find_row(lines, a, b, p)
  for _, k in ipairs(rows_with(lines, p, a, b)) do
    if starts_after_indent(lines[k], p) then
      return k
    end
  end
  return nil
end

-- Errors ------------------------------------------------------------------------

-- Errors Claude Code prints on a result row ("  ⎿  ...") under the prompt
-- instead of an "● API Error" answer, with "Once fixed, resend your
-- message" in the input row.
local RESULT_ERRORS = {
  "Invalid API key",
  "Credit balance",
  "Please run /login",
  "OAuth token",
  "API Error",
  "usage limit",
  "limit reached",
  "Prompt is too long",
}

local function error_kind(msg)
  local m = string.lower(msg)
  if has(m, "credit balance") or has(m, "usage limit") or has(m, "quota")
    or has(m, "limit reached") or has(m, "out of extra usage") then
    return "quota"
  end
  if has(m, "(429)") or has(m, "429 ") or has(m, "rate limit") or has(m, "rate_limit") then
    return "rate_limit"
  end
  if has(m, "invalid api key") or has(m, "x-api-key") or has(m, "401") or has(m, "/login")
    or has(m, "authentication") or has(m, "oauth token") or has(m, "403") then
    return "auth"
  end
  if has(m, "connection") or has(m, "econnrefused") or has(m, "enotfound") or has(m, "etimedout")
    or has(m, "econnreset") or has(m, "unable to connect") or has(m, "network")
    or has(m, "fetch failed") or has(m, "timed out") or has(m, "socket") then
    return "connection"
  end
  if has(m, "issue with the selected model") or has(m, "api error: 404") then
    return "model"
  end
  if has(m, "request too large") or has(m, "prompt is too long") or has(m, "api error: 413") then
    return "too_large"
  end
  if string.find(m, "api error: %d%d%d") or has(m, "overloaded") or has(m, "server error")
    or has(m, "server-side") or has(m, "request rejected") then
    return "api"
  end
  return "unknown"
end

local function error_meta(msg)
  local e = { kind = error_kind(msg), message = msg }
  local secs = string.match(msg, "[Rr]etry after (%d+) ?s")
    or string.match(msg, "try again in (%d+) ?s")
    or string.match(msg, "try again in (%d+) seconds")
  e.retry_after_s = tonumber(secs)
  return e
end

-- Transcript blocks -------------------------------------------------------------

-- block_text reads the "● " block starting at row s up to row e: the first
-- row without its bullet, the rest without their two-space indent.
local function block_text(lines, s, e, headless)
  local parts = {}
  local first = s
  if not headless then
    parts[1] = string.sub(lines[s], #"● " + 1)
    first = s + 1
  end
  for k = first, e do
    local l = lines[k]
    if starts(l, "  ") then
      l = string.sub(l, 3)
    end
    parts[#parts + 1] = l
  end
  while #parts > 1 and is_blank(parts[#parts]) do
    parts[#parts] = nil
  end
  while #parts > 1 and is_blank(parts[1]) do
    table.remove(parts, 1)
  end
  for i, p in ipairs(parts) do
    parts[i] = nbsp_to_space((string.gsub(p, "%s+$", "")))
  end
  return table.concat(parts, "\n")
end

-- last_block finds the last "● " block in rows a..e (exclusive of e+1).
local function last_block(lines, a, e)
  local rows = rows_with(lines, "● ", a, e)
  for i = #rows, 1, -1 do
    if starts(lines[rows[i]], "● ") then
      return rows[i]
    end
  end
  return nil
end

-- Results -----------------------------------------------------------------------

-- Explanations. Only when the host asks (ctx.explain) does classify name
-- the rule that fired, list the rules it tried before it and why each did
-- not (trace), and give the rows the firing rule matched (region): a plain
-- classify builds none of it (the host reads them only for an explanation).
local trace = nil

-- result is a classification; rule is the stable id of the detector that
-- made it ("claude.permission"), which adapter.explain reports and every
-- fixture's expected file names.
local function result(state, confidence, evidence, meta, rule)
  local res = { state = state, confidence = confidence, evidence = evidence, metadata = meta }
  if trace then
    res.rule = rule
  end
  return res
end

-- tried records that rule was tried and did not fire, and why.
local function tried(rule, reason)
  if trace then
    trace[#trace + 1] = { rule = rule, reason = reason }
  end
end

-- at records the rows first..last (1-based) the rule matched.
local function at(res, first, last)
  if trace and first and first >= 1 then
    if not last or last < first then
      last = first
    end
    res.region = { first_row = first, last_row = last }
  end
  return res
end

-- fallback marks a state the classifier reached by a catch-all rule
-- rather than by recognising the screen (anomaly state_fallback).
local function fallback(res, why)
  res.fallback = why
  return res
end

-- unmatched marks a screen that matched no state's shape (anomaly
-- unrecognized_screen, output_format_match false).
local function unmatched(res)
  res.unmatched = true
  return res
end

local function with_status(meta)
  meta = meta or {}
  if last_model or last_mode then
    meta.status = { model = last_model, permission_mode = last_mode }
  end
  return meta
end

local function set_menu(kind, opts, sel, numbered)
  if opts and #opts > 0 then
    last_menu = { kind = kind, options = opts, selected = sel, numbered = numbered }
  end
end

local function options_meta(meta, opts, sel)
  meta.options = opts
  meta.selected_index = sel and opts[sel].index or nil
  return meta
end

-- Screens with the live prompt box ----------------------------------------------

-- last_row returns the last row in a..b that contains p and passes ok.
local function last_row(lines, p, ok, a, b)
  local rows = rows_with(lines, p, a, b)
  for i = #rows, 1, -1 do
    if ok(lines[rows[i]]) then
      return rows[i]
    end
  end
  return nil
end

local function is_result_row(l)
  return starts(l, "  ⎿")
end

-- API error blocks: "● API Error: 500 ...", "● Please run /login · API
-- Error: 403 ...", and the two that name no API error: the model not found
-- (404) and the request too large (413).
local API_ERROR_STARTS = { "● There's an issue with the selected model", "● Request too large (max" }

local function is_api_error(l)
  return starts(l, "● API Error") or string.find(l, "^● [^\n]- · API Error: %d%d%d") ~= nil
    or starts(l, API_ERROR_STARTS)
end

-- Status rows under the prompt box. A row is known when each of its
-- segments (split at " · " and at runs of spaces) is a mode, a key hint
-- ("? for shortcuts", "esc to interrupt", "ctrl+o to see full transcript",
-- the shortcuts grid) or a fixed notice below; anything else is a screen
-- part the plugin was never shown, and the reading turns conservative.
local STATUS_SEGMENTS = {
  ["(shift+tab to cycle)"] = true, ["/effort"] = true, ["Press Ctrl-C again to exit"] = true,
  ["paste again to expand"] = true, ["auto-summarizing"] = true,
  -- The hints on nearly every status row, looked up before the general
  -- rules below.
  ["? for shortcuts"] = true, ["\226\134\144 for agents"] = true, ["esc to interrupt"] = true,
}
local KEYISH = { "esc", "enter", "tab", "shift", "ctrl", "alt", "meta", "cmd", "option", "space", "paste", "double",
  "!", "/", "@", "?", "#", "\226\134\144", "\226\134\145", "\226\134\147", "\226\134\146", "\226\134\181" }

local function keyish(seg)
  local first = string.match(seg, "^(%S+)")
  return first ~= nil and starts(string.lower(first), KEYISH)
end

local function known_segment(seg)
  if STATUS_SEGMENTS[seg] or parse_mode(seg) then
    return true
  end
  if string.match(seg, "^\226\151[\144-\145] %a+$") then
    return true -- "◐ medium": the effort gauge
  end
  -- A key hint: "KEY for THING" or "KEY[ KEY] to VERB ...".
  return keyish(seg) and (has(seg, " for ") or has(seg, " to "))
end

-- unknown_status_rows lists the rows first..last (the status block) that
-- are not known status rows, as {row, text}.
-- known_rows remembers the verdict on status rows already read: the same
-- few rows come back on every frame. Bounded: cleared when it fills.
local known_rows, known_rows_n = {}, 0

local function known_status_row(row)
  local v = known_rows[row]
  if v ~= nil then
    return v
  end
  v = true
  for _, seg in ipairs(text.segments(row)) do
    if not known_segment(seg) then
      v = false
    end
  end
  if known_rows_n >= 64 then
    known_rows, known_rows_n = {}, 0
  end
  known_rows[row], known_rows_n = v, known_rows_n + 1
  return v
end

local function unknown_status_rows(lines, first, last)
  local out = {}
  -- The shortcuts help ("?") is a grid of hints whose cells wrap on narrow
  -- screens; from its first row ("! for shell mode ...") on, it is known.
  local grid = find_line(lines, "! for shell mode", first, last)
  if grid then
    last = grid - 1
  end
  for k = first, last do
    local row = trim(nbsp_to_space(lines[k]))
    if row ~= "" and not known_status_row(row) then
      out[#out + 1] = { row = k, text = row }
    end
  end
  return out
end

-- BUSY_WORDS: signs of work in a row the plugin does not know.
local BUSY_WORDS = { "esc to cancel", "esc to interrupt", "Waiting", "Starting", "Loading", "Connecting", "Retrying", "retrying" }

local function busy_sign(row)
  return has(row, BUSY_WORDS) or spinner_info(row) ~= nil
end

local function classify_box(ctx, lines, last, box)
  local meta = {}
  local status_row = lines[box.bottom + 1] or ""
  local status_block = table.concat(lines, "\n", box.bottom + 1, last >= box.bottom + 1 and last or box.bottom)
  if box.bottom + 1 > last then
    status_block = ""
  end
  local mode = parse_mode(status_row)
  if mode then
    last_mode = mode
  end

  local input = box.input
  for _, p in ipairs(PLACEHOLDERS) do
    if input == p then
      meta.placeholder = p
      input = ""
    end
  end
  if input ~= "" then
    meta.input = input
  end

  -- The transcript region of the current turn: after the last echoed prompt.
  local echo = 0
  local echoes = rows_with(lines, ECHO, 1, box.top - 1)
  for i = #echoes, 1, -1 do
    if is_echo(lines[echoes[i]]) then
      echo = echoes[i]
      break
    end
  end
  if echo > 0 then
    meta.prompt = trim(string.sub(lines[echo], #CURSOR + 2))
  end

  -- Busy: the status row says "esc to interrupt", or a spinner row sits
  -- just above the box.
  local spin, spin_row = nil, nil
  local lo = box.top - 6
  if lo <= echo then
    lo = echo + 1
  end
  for k = box.top - 1, lo, -1 do
    local info = spinner_info(lines[k])
    if info then
      spin, spin_row = info, k
      break
    end
  end
  local busy = has(status_block, "esc to interrupt") or spin ~= nil
  if busy then
    if spin then
      if spin.retry then
        meta.error = { kind = error_kind(spin.message), message = spin.message,
          retry_after_s = spin.retry_after_s, attempt = spin.attempt,
          max_attempts = spin.max_attempts, retrying = true }
      else
        meta.activity = spin
      end
    end
    if find_line(lines, "Queued · ", echo > 0 and echo or 1, box.top - 1) then
      meta.queued = true
    end
    -- Answer text streamed so far (Claude Code shows whole lines only).
    local stop = (spin_row or box.top) - 1
    local b = last_block(lines, echo + 1, stop)
    if b and not is_api_error(lines[b]) then
      local e = stop
      while e > b and (is_blank(lines[e]) or indent(lines[e]) >= 20) do
        e = e - 1
      end
      meta.turn = { text = block_text(lines, b, e), partial = true }
    end
    if ctx.last_intent == "cancelling" then
      return at(result("cancelling", 0.9, "cancel sent; status row still says esc to interrupt", with_status(meta), "claude.cancelling_busy"), box.top, last)
    end
    tried("claude.cancelling_busy", "no cancel sent (last_intent is not cancelling)")
    if has(status_block, "esc to interrupt") then
      return at(result("thinking", 0.95, "status row: esc to interrupt", with_status(meta), "claude.busy_status"), box.bottom + 1, last)
    end
    tried("claude.busy_status", "the status row does not say esc to interrupt")
    return at(result("thinking", 0.95, "spinner row: " .. trim(lines[spin_row]), with_status(meta), "claude.spinner"), spin_row)
  end
  tried("claude.busy_status", "the status row does not say esc to interrupt")
  tried("claude.spinner", "no spinner row just above the prompt box")

  local stable = ctx.stable_ms or 0
  local threshold = ctx.completed_turn_stable_ms or 300
  if ctx.last_intent == "cancelling" and stable < threshold then
    return at(result("cancelling", 0.8, "cancel sent; screen not settled yet", with_status(meta), "claude.cancelling_unsettled"), box.top, box.bottom)
  end
  tried("claude.cancelling_unsettled", ctx.last_intent == "cancelling" and "the screen has settled since the cancel" or "no cancel sent")

  -- What ended the current turn: the last of a turn-end line, an API
  -- error, an auth failure or an interruption. Right-aligned hint rows just
  -- above the box ("ctrl+y to paste deleted text", "◐ medium · /effort")
  -- are not part of the transcript.
  local from = echo + 1
  local upto = box.top - 1
  while upto >= from and (is_blank(lines[upto]) or indent(lines[upto]) >= 20) do
    upto = upto - 1
  end
  local done_row, err_row, auth_row, int_row
  done_row = last_row(lines, " · done", is_done_line, from, upto)
  err_row = last_row(lines, "● ", is_api_error, from, upto)
  for _, p in ipairs(RESULT_ERRORS) do
    local r = last_row(lines, p, is_result_row, from, upto)
    if r and (not auth_row or r > auth_row) then
      auth_row = r
    end
  end
  int_row = last_row(lines, "Interrupted · ", is_result_row, from, upto)
  local kind, row = nil, 0
  for _, c in ipairs({ { "done", done_row }, { "error", err_row }, { "auth", auth_row }, { "interrupted", int_row } }) do
    if c[2] and c[2] > row then
      kind, row = c[1], c[2]
    end
  end

  local unknown = unknown_status_rows(lines, box.bottom + 1, last)
  -- Claude Code keeps a blank row above the prompt box, or a
  -- right-aligned hint ("ctrl+y to paste deleted text", "◐ medium ·
  -- /effort"); anything else there is a line no rule placed. Typing "/"
  -- opens the command list there ("    /branch   Create a branch ..."),
  -- and "@" a list of paths (not captured yet: not checked).
  local above = box.top - 1
  local slash_row = starts(box.input, "/") and above >= 1
    and (string.find(lines[above], "^%s+/%S") or string.find(lines[above], "^%s+" .. CURSOR .. " /%S"))
  if above >= 1 and not slash_row and not has(box.input, "@") and not is_blank(lines[above]) then
    if indent(lines[above]) < 20 then
      table.insert(unknown, 1, { row = above, text = trim(lines[above]) })
    else
      for i, u in ipairs(unknown_status_rows(lines, above, above)) do
        table.insert(unknown, i, u)
      end
    end
  end
  if #unknown > 0 then
    local busy = false
    for _, u in ipairs(unknown) do
      busy = busy or busy_sign(u.text)
    end
    meta.unrecognized = unknown
    local ev = "unrecognised status row " .. unknown[1].row .. ": " .. string.sub(unknown[1].text, 1, 60)
    local res = result(busy and "thinking" or "unrecognized", busy and 0.5 or 0.4, ev .. (busy and " (busy sign)" or ""), with_status(meta), "claude.unrecognized_status")
    res.unknown_rows = unknown
    return at(res, unknown[1].row, unknown[#unknown].row)
  end
  tried("claude.unrecognized_status", "every status row under the box is known")

  if input ~= "" then
    return at(result("ready", 0.9, "live prompt holds typed input", with_status(meta), "claude.typed_input"), box.input_row, box.bottom - 1)
  end
  tried("claude.typed_input", "the prompt box holds no typed input")

  if kind == "done" then
    local settled = stable >= threshold
    local b = last_block(lines, from, done_row - 1)
    local turn = { summary = trim(lines[done_row]) }
    if b then
      turn.text = block_text(lines, b, done_row - 1)
    elseif done_row > from then
      -- The answer's first row scrolled away: what is left of it.
      turn.text = block_text(lines, from, done_row - 1, true)
    end
    turn.duration = string.match(lines[done_row], " for (.-) · done")
    turn.truncated = echo == 0 or nil
    meta.turn = turn
    meta.settled = settled
    return at(result("completed_turn", settled and 0.95 or 0.8, "turn-end line: " .. trim(lines[done_row]), with_status(meta), "claude.turn_done"), done_row)
  elseif kind == "error" then
    local e = 0
    for k = err_row + 1, upto do
      if starts(lines[k], "  ") and not is_blank(lines[k]) then
        e = k
      elseif not is_blank(lines[k]) then
        break
      end
    end
    if e < err_row then
      e = err_row
    end
    local msg = block_text(lines, err_row, e)
    msg = string.gsub(msg, "\n", " ")
    meta.error = error_meta(msg)
    return at(result("error", 0.95, "API error block: " .. trim(lines[err_row]), with_status(meta), "claude.api_error"), err_row, e)
  elseif kind == "auth" then
    -- The error sits on a result row under the prompt, maybe wrapped.
    local parts = { trim(nbsp_to_space(string.sub(lines[auth_row], #"  ⎿" + 1))) }
    for k = auth_row + 1, upto do
      if indent(lines[k]) < 5 or is_blank(lines[k]) then
        break
      end
      parts[#parts + 1] = trim(lines[k])
    end
    local msg = table.concat(parts, " ")
    meta.error = error_meta(msg)
    return at(result("error", 0.9, "error under the prompt: " .. msg, with_status(meta), "claude.result_error"), auth_row, auth_row + #parts - 1)
  elseif kind == "interrupted" then
    meta.interrupted = true
    return at(result("ready", 0.95, "live prompt; turn interrupted", with_status(meta), "claude.interrupted"), int_row)
  end
  if trace then
    local why = "nothing ends the current turn above the prompt box"
    tried("claude.turn_done", why)
    tried("claude.api_error", why)
    tried("claude.result_error", why)
    tried("claude.interrupted", why)
  end
  return at(result("ready", 0.95, "live prompt, idle status row", with_status(meta), "claude.idle_box"), box.top, box.bottom)
end

-- Screens without the box ---------------------------------------------------------

local function permission_dialog(lines, a, last, q)
  -- The dialog opens with the last full-width rule above the question.
  local top = nil
  for k = q - 1, a, -1 do
    if is_rule(lines[k]) then
      top = k
      break
    end
  end
  if not top then
    return nil
  end
  local title_row = nonblank(lines, top + 1, q - 1)
  if not title_row then
    return nil
  end
  local title = trim(lines[title_row])
  -- A preview (command or file) between two dashed rules.
  local d1, d2 = nil, nil
  for k = title_row + 1, q - 1 do
    if starts(lines[k], DASH10) then
      if not d1 then
        d1 = k
      elseif not d2 then
        d2 = k
      end
    end
  end
  local desc_row = last_nonblank(lines, title_row + 1, (d1 or q) - 1)
  local description = desc_row and trim(lines[desc_row])
  local preview = nil
  if d1 and d2 then
    local parts = {}
    for k = d1 + 1, d2 - 1 do
      parts[#parts + 1] = trim(lines[k])
    end
    preview = table.concat(parts, "\n")
  end
  local foot = last
  local opts, sel = parse_numbered(lines, q + 1, foot, "label", false)
  if #opts == 0 then
    return nil
  end
  local tool = TOOL_TITLES[title]
  -- The tool row above the dialog: "● Write(notes.md)".
  local row = nil
  for k = top - 1, 1, -1 do
    if starts(lines[k], "● ") or starts(lines[k], "  ") and not is_blank(lines[k]) then
      if starts(lines[k], "● ") then
        row = k
        break
      end
    end
    if is_echo(lines[k]) then
      break
    end
  end
  if not tool and row then
    tool = string.match(lines[row], "^● (%w+)%(")
  end
  local mcp = nil
  if not tool and description then
    -- "Tool use" / "zoo — Echo Tool: (MCP)": the server and the tool.
    local server, name = string.match(description, "^(.-) — (.-):? %(MCP%)$")
    if server then
      tool, mcp = "MCP", { server = server, tool = name }
    end
  end
  if not tool then
    tool = title
  end
  local summary
  if tool == "Bash" and preview then
    summary = preview
  else
    summary = description or preview or title
  end
  local perm = {
    tool = tool,
    mcp = mcp,
    title = title,
    summary = summary,
    description = description,
    question = trim(lines[q]),
    options = opts,
  }
  if tool == "Bash" then
    perm.command = preview
  elseif preview then
    perm.preview = preview
  end
  if find_line(lines, "requires approval", title_row, q) then
    perm.requires_approval = true
  end
  -- What the tool acts on: a file tool's path is the row under the title,
  -- a fetch's URL the preview's "url:" row.
  if FILE_TOOLS[tool] then
    local pr = nonblank(lines, title_row + 1, (d1 or q) - 1)
    perm.path = pr and trim(lines[pr]) or nil
  elseif tool == "WebFetch" and preview then
    perm.url = string.match(preview, "^url: (%S+)") or string.match(preview, "\nurl: (%S+)")
  end
  local id = "perm-" .. hash32(tool .. "\n" .. title .. "\n" .. (description or "") .. "\n" .. (preview or ""))
  return perm, id, opts, sel, top
end

-- dialog_of is the shape every built-in plugin reports for a permission
-- dialog (metadata.dialog, see ptywright.Dialog): the tool kind, what it
-- acts on, the options and the highlighted one. classify gives it its
-- instance id.
local function dialog_of(perm, key, opts, sel)
  local d = {
    kind = "permission",
    key = key,
    tool = TOOL_KINDS[perm.tool] or "other",
    tool_name = perm.tool,
    command = perm.command,
    path = perm.path,
    url = perm.url,
    mcp_server = perm.mcp and perm.mcp.server or nil,
    mcp_tool = perm.mcp and perm.mcp.tool or nil,
    options = {},
    selected_index = sel and opts[sel].index or nil,
  }
  for i, o in ipairs(opts) do
    d.options[i] = { index = o.index, label = o.label }
  end
  return d
end

-- PLAN_DIALOGS are the plan-mode dialogs, in the order they are tried:
-- the title row each is found by, the menu kind the intents see, the state
-- and the rule.
local PLAN_DIALOGS = {
  { title = "Exit plan mode?", menu = "plan_approval", state = "waiting_for_plan_approval", rule = "claude.exit_plan_mode" },
  { title = "Enter plan mode?", menu = "enter_plan_mode", state = "waiting_for_enter_plan_mode", rule = "claude.enter_plan_mode" },
}

local function classify_dialog(ctx, lines, last)
  local screen_top = 1
  -- Blank screen: start-up, or a terminal editor that cleared the screen.
  if last == 0 then
    if ctx.last_intent == "external_editor" then
      return result("waiting_for_external_editor", 0.7, "blank screen after ctrl+g (terminal editor)", with_status(), "claude.blank_after_editor")
    end
    tried("claude.blank_after_editor", "no ctrl+g sent (last_intent is not external_editor)")
    return result("starting", 0.6, "blank screen", with_status(), "claude.blank")
  end

  -- Terminal editor owning the screen (vi), or the GUI-editor wait.
  local tildes = 0
  for k = 1, last do
    if lines[k] == "~" then
      tildes = tildes + 1
    end
  end
  if tildes >= 3 then
    return at(result("waiting_for_external_editor", 0.85, "editor owns the screen (" .. tildes .. " '~' rows)", with_status({ editor = "terminal" }), "claude.terminal_editor"), 1, last)
  end
  tried("claude.terminal_editor", "fewer than 3 '~' rows")
  local gui = find_line(lines, "Save and close the editor to continue", 1, last)
  if gui then
    return at(result("waiting_for_external_editor", 0.95, "Save and close the editor to continue…", with_status({ editor = "gui" }), "claude.gui_editor"), gui)
  end
  tried("claude.gui_editor", "no 'Save and close the editor to continue' row")

  -- Transcript view (ctrl+o).
  local tv = find_line(lines, "Showing detailed transcript", math.max(1, last - 2), last)
  if tv then
    return at(result("local_ui_screen", 0.95, "transcript view: " .. trim(lines[tv]), with_status({ screen = "transcript" }), "claude.transcript_view"), tv)
  end
  tried("claude.transcript_view", "no 'Showing detailed transcript' in the last three rows")

  local a = content_end(lines, last) + 1

  -- Start-up failures that end the program.
  local r = find_line(lines, "Unable to connect to Anthropic services", a, last)
  if r then
    local detail = find_row(lines, r + 1, last, "Failed to connect")
    local msg = "Unable to connect to Anthropic services"
    if detail then
      msg = msg .. ": " .. trim(lines[detail])
    end
    local meta = { error = error_meta(msg) }
    meta.error.kind = "connection"
    meta.exited = true
    return at(result("error", 0.95, "start-up connectivity check failed", with_status(meta), "claude.connect_failed"), r, detail)
  end
  tried("claude.connect_failed", "no 'Unable to connect to Anthropic services' below the transcript")
  r = find_line(lines, "didn't start because this folder isn't trusted", a, last)
  if r then
    local meta = { error = { kind = "unknown", message = trim(lines[r]) }, exited = true }
    return at(result("error", 0.95, "workspace trust declined: Claude Code exited", with_status(meta), "claude.trust_declined"), r)
  end
  tried("claude.trust_declined", "no 'folder isn't trusted' exit message")

  -- Workspace trust.
  local acc = find_row(lines, a, last, "Accessing workspace:")
    or find_row(lines, a, last, "Do you trust the files in this folder?")
  if acc and find_line(lines, "trust this folder", acc, last) then
    local opts, sel, numbered = parse_menu(lines, acc, last)
    set_menu("trust", opts, sel, numbered)
    local meta = options_meta({}, opts, sel)
    local p = nonblank(lines, acc + 1, last)
    meta.workspace = p and trim(lines[p])
    return at(result("waiting_for_trust", 0.95, "workspace trust dialog: " .. trim(lines[acc]), with_status(meta), "claude.trust_dialog"), acc, last)
  end
  tried("claude.trust_dialog", acc and "no 'trust this folder' option below the trust question" or "no 'Accessing workspace:' or trust question row")

  -- Login.
  r = find_row(lines, a, last, "Select login method:")
  if r then
    local opts, sel = parse_numbered(lines, r + 1, last, "label", false)
    set_menu("login", opts, sel, true)
    return at(result("waiting_for_login", 0.95, "Select login method:", with_status(options_meta({}, opts, sel)), "claude.login_method"), r, last)
  end
  tried("claude.login_method", "no 'Select login method:' row")
  r = find_row(lines, a, last, "Paste code here if prompted") or find_row(lines, a, last, "Browser didn't open?")
  if r then
    local meta = {}
    local u = find_row(lines, a, last, "https://")
    if u then
      meta.url = trim(lines[u])
    end
    return at(result("waiting_for_login", 0.9, "sign-in page: " .. trim(lines[r]), with_status(meta), "claude.login_page"), r)
  end
  tried("claude.login_page", "no 'Paste code here if prompted' or 'Browser didn't open?' row")

  -- Onboarding pages.
  r = find_row(lines, a, last, "Do you want to use this API key?")
  if r then
    local opts, sel = parse_unnumbered(lines, r + 1, last)
    set_menu("api_key", opts, sel, false)
    local meta = options_meta({ onboarding = "api_key" }, opts, sel)
    return at(result("starting", 0.9, "onboarding: Do you want to use this API key?", with_status(meta), "claude.onboarding_api_key"), r, last)
  end
  tried("claude.onboarding_api_key", "no 'Do you want to use this API key?' row")
  r = find_row(lines, a, last, "Choose the text style")
  if r then
    local opts, sel = parse_unnumbered(lines, r + 1, last)
    set_menu("theme", opts, sel, false)
    local meta = options_meta({ onboarding = "theme" }, opts, sel)
    return at(result("starting", 0.9, "onboarding: theme picker", with_status(meta), "claude.onboarding_theme"), r, last)
  end
  tried("claude.onboarding_theme", "no 'Choose the text style' row")
  r = find_row(lines, a, last, "Security notes:")
  if r and find_row(lines, r, last, "Press Enter to continue") then
    last_menu = { kind = "security_notes", options = {} }
    return at(result("starting", 0.9, "onboarding: Security notes", with_status({ onboarding = "security_notes" }), "claude.onboarding_security_notes"), r, last)
  end
  tried("claude.onboarding_security_notes", "no 'Security notes:' page with 'Press Enter to continue'")
  r = find_line(lines, "Checking connectivity", a, last)
  if r then
    return at(result("starting", 0.85, "Checking connectivity…", with_status({ onboarding = "connectivity" }), "claude.onboarding_connectivity"), r)
  end
  tried("claude.onboarding_connectivity", "no 'Checking connectivity' row")

  -- Panels opened by a "▔" row.
  local panel = nil
  for k = last, a, -1 do
    if is_panel(lines[k]) then
      panel = k
      break
    end
  end
  local base = panel or a

  -- Plan-mode dialogs.
  for _, d in ipairs(PLAN_DIALOGS) do
    r = find_row(lines, base, last, d.title)
    if r then
      local opts, sel, numbered = parse_menu(lines, r + 1, last)
      if #opts > 0 then
        set_menu(d.menu, opts, sel, numbered)
        return at(result(d.state, 0.95, d.title, with_status(options_meta({}, opts, sel)), d.rule), r, last)
      end
    end
    tried(d.rule, r and ("'" .. d.title .. "' without options below it") or ("no '" .. d.title .. "' row"))
  end

  -- Model picker and its switch confirmation.
  r = find_row(lines, base, last, "Select model")
  if r then
    local opts, sel = parse_numbered(lines, r + 1, last, "description", true)
    set_menu("model_select", opts, sel, true)
    local meta = options_meta({}, opts, sel)
    local current = nil
    for _, o in ipairs(opts) do
      if o.current then
        current = o.label
      end
    end
    meta.current = current
    local eff = find_line(lines, "effort", r, last)
    if eff then
      meta.effort = string.match(trim(lines[eff]), "^%S+ (%a+) effort")
    end
    return at(result("waiting_for_model_select", 0.95, "Select model", with_status(meta), "claude.model_picker"), r, last)
  end
  tried("claude.model_picker", "no 'Select model' row")
  r = find_row(lines, base, last, "Switch model?")
  if r then
    local opts, sel = parse_numbered(lines, r + 1, last, "label", false)
    if #opts > 0 then
      set_menu("model_switch", opts, sel, true)
      return at(result("waiting_for_model_select", 0.9, "Switch model?", with_status(options_meta({ confirm = true }, opts, sel)), "claude.model_switch"), r, last)
    end
  end
  tried("claude.model_switch", r and "'Switch model?' without numbered options" or "no 'Switch model?' row")

  if panel then
    local tabs = trim(lines[panel + 1] or "")
    if starts(tabs, "Settings") and (find_row(lines, panel, last, "Estimated cost:")
      or find_row(lines, panel, last, "Usage by model:")
      or find_row(lines, panel, last, "Total duration (API):")
      or find_line(lines, "% used", panel, last)) then
      return at(result("usage_screen", 0.95, "Settings panel, Usage tab", with_status({ screen = "usage" }), "claude.usage_panel"), panel, last)
    end
    tried("claude.usage_panel", "the panel is not the Settings panel's Usage tab")
    local name = "panel"
    if starts(tabs, "Settings") then
      if find_row(lines, panel, last, "Version:") then
        name = "status"
      elseif find_line(lines, "Search settings", panel, last) or find_row(lines, panel, last, "No settings match") then
        name = "config"
      elseif find_row(lines, panel, last, "Overview") then
        name = "stats"
      else
        name = "settings"
      end
    elseif starts(tabs, "Help") then
      name = "help"
    elseif starts(tabs, "Rewind") then
      name = "rewind"
    end
    if name == "rewind" then
      local opts, sel = parse_unnumbered(lines, panel + 1, last)
      set_menu("rewind", opts, sel, false)
    end
    return at(result("local_ui_screen", 0.9, "panel: " .. tabs, with_status({ screen = name }), "claude.panel"), panel, last)
  end
  tried("claude.usage_panel", "no panel ('▔' row)")
  tried("claude.panel", "no panel ('▔' row)")

  -- AskUserQuestion: "☐ Header", the question, numbered options, footer
  -- "Enter to select · ↑/↓ to navigate".
  local foot = find_row(lines, a, last, "Enter to select")
  local hdr = find_row(lines, a, last, "☐ ") or find_row(lines, a, last, "☒ ")
  if foot and hdr then
    local opts, sel = parse_numbered(lines, hdr + 1, foot - 1, "description", false)
    if #opts > 0 then
      local qrow = nonblank(lines, hdr + 1, foot)
      set_menu("question", opts, sel, true)
      local meta = options_meta({}, opts, sel)
      meta.question = { header = trim(string.sub(trim(lines[hdr]), #"☐ " + 1)), text = qrow and trim(lines[qrow]) or nil }
      return at(result("waiting_for_user_input", 0.95, "question dialog: " .. trim(lines[hdr]), with_status(meta), "claude.question"), hdr, foot)
    end
  end
  tried("claude.question", (foot and hdr) and "question header and footer without numbered options" or "no '☐ ' header with an 'Enter to select' footer")

  -- Permission dialogs: a rule, a title, "Do you want to ...?", numbered
  -- options, footer "Esc to cancel".
  local q = nil
  for k = last, a, -1 do
    local t = trim(lines[k])
    if starts(t, "Do you want to ") and string.sub(t, -1) == "?" then
      q = k
      break
    end
  end
  -- The footer is "Esc to cancel · Tab to amend", or (the web fetch dialog)
  -- none: the last option, "No, … (esc)", ends the screen.
  local ends = q and (find_row(lines, q, last, "Esc to cancel")
    or (string.find(lines[last], "^ +%d+%. No") and has(lines[last], "(esc)")))
  if ends then
    local perm, id, opts, sel, top = permission_dialog(lines, a, last, q)
    if perm then
      set_menu("permission", opts, sel, true)
      local meta = options_meta({ permission = perm, dialog_id = id, dialog = dialog_of(perm, id, opts, sel) }, opts, sel)
      return at(result("waiting_for_permission", 0.95, perm.title .. ": " .. perm.question, with_status(meta), "claude.permission"), top, last)
    end
  end
  tried("claude.permission", q and "a 'Do you want to ...?' row without the permission dialog's shape" or "no 'Do you want to ...?' row")

  -- A project's new MCP server asks to be approved at start-up.
  local mh = find_row(lines, a, last, "New MCP server found in this project:")
  if mh and has(lines[last], "Enter to confirm") then
    local opts, sel = parse_unnumbered(lines, mh + 1, last - 1)
    if sel then
      set_menu("mcp_server", opts, sel, false)
      local meta = options_meta({ mcp_server = trim(string.match(lines[mh], ":%s*(.*)$") or "") }, opts, sel)
      return at(result("waiting_for_user_input", 0.9, "MCP server approval: " .. trim(lines[mh]), with_status(meta), "claude.mcp_server"), mh, last)
    end
  end
  tried("claude.mcp_server", "no 'New MCP server found' dialog")

  -- The --resume session list.
  local rh = nil
  for k = a, last do
    if trim(lines[k]) == "Resume session" then
      rh = k
      break
    end
  end
  if rh and has(table.concat(lines, "\n", rh, last), "Enter to resume") then
    local cur = nil
    for k = rh + 1, last do
      local _, t = indent(lines[k])
      if starts(t, CURSOR .. " ") then
        cur = trim(string.sub(t, #CURSOR + 2))
        break
      end
    end
    local meta = { resume = { selected = cur } }
    return at(result("waiting_for_user_input", 0.85, "resume session list" .. (cur and (": " .. cur) or ""), with_status(meta), "claude.resume_list"), rh, last)
  end
  tried("claude.resume_list", "no 'Resume session' list")

  -- Claude Code quit and printed how to resume the session.
  for k = a, last do
    if lines[k] == "Resume this session with:" and lines[k + 1] and string.find(lines[k + 1], "^claude .*%-%-resume %S+") then
      local meta = { exited = true, resume_command = trim(lines[k + 1]), resume_session = string.match(lines[k + 1], "%-%-resume (%S+)") }
      return at(result("exited", 0.9, "exit screen: Resume this session with", with_status(meta), "claude.exited"), k, k + 1)
    end
  end
  tried("claude.exited", "no 'Resume this session with:' screen")

  -- Any other numbered menu with a cursor.
  local opts, sel = parse_numbered(lines, a, last, "label", false)
  if sel then
    set_menu("menu", opts, sel, true)
    return at(fallback(result("waiting_for_user_input", 0.6, "numbered menu with a cursor", with_status(options_meta({}, opts, sel)), "claude.numbered_menu"),
      "no known dialog; a numbered menu with a cursor read as waiting_for_user_input"), a, last)
  end
  tried("claude.numbered_menu", "no numbered menu with a cursor below the transcript")

  local w = find_row(lines, 1, last, "Welcome to Claude Code")
  if w then
    return at(result("starting", 0.6, "welcome header, no prompt yet", with_status(), "claude.welcome"), w)
  end
  tried("claude.welcome", "no 'Welcome to Claude Code' row")
  if a == 1 then
    return unmatched(result("starting", 0.4, "no prompt box, dialog or transcript yet", with_status(), "claude.unrecognised"))
  end
  tried("claude.unrecognised", "the screen has a transcript")
  return at(fallback(result("thinking", 0.3, "transcript without a prompt box or known dialog (transient frame)", with_status(), "claude.transient_frame"),
    "no prompt box and no known dialog below the transcript; read as a transient frame of a running turn"), 1, a - 1)
end

-- Assessment -------------------------------------------------------------------

-- ASSESS maps each state to the host's provider-agnostic reading
-- (availability, business_state, input_mode, ui_context), which the turn
-- lifecycle is derived from.
local ASSESS = {
  starting = { "supported", "unknown", "unknown", "startup" },
  ready = { "supported", "idle", "freeform", "normal_prompt" },
  completed_turn = { "supported", "idle", "freeform", "normal_prompt" },
  error = { "supported", "idle", "freeform", "normal_prompt" },
  thinking = { "supported", "working", "freeform", "normal_prompt" },
  cancelling = { "supported", "working", "freeform", "normal_prompt" },
  unrecognized = { "supported", "unknown", "freeform", "unknown" },
  exited = { "disconnected", "unknown", "closed", "exited" },
  waiting_for_login = { "supported", "awaiting_operator", "modal", "selection_menu" },
  waiting_for_trust = { "supported", "awaiting_operator", "modal", "selection_menu" },
  waiting_for_model_select = { "supported", "awaiting_operator", "modal", "selection_menu" },
  waiting_for_enter_plan_mode = { "supported", "awaiting_operator", "modal", "selection_menu" },
  waiting_for_plan_approval = { "supported", "awaiting_operator", "modal", "selection_menu" },
  waiting_for_permission = { "supported", "awaiting_operator", "modal", "selection_menu" },
  waiting_for_user_input = { "supported", "awaiting_operator", "modal", "selection_menu" },
  waiting_for_external_editor = { "supported", "awaiting_operator", "closed", "external_editor" },
  usage_screen = { "supported", "idle", "modal", "local_panel" },
  local_ui_screen = { "supported", "idle", "modal", "local_panel" },
}

-- The parser's provenance (parsing contract, ShadowParserMetadata). One
-- preset reads every Claude Code version; VERSION_FLOOR is the version it
-- was written and checked against (testdata/fixtures/claude_code), used
-- for a version it does not know or when no banner has been seen.
local PROVIDER_ID = "claude-code"
local PRESET_ID = "claude-code-tui"
local PRESET_VERSION = "1"
local VERSION_FLOOR = "2.1.330"
local KNOWN_VERSIONS = { ["2.1.330"] = true }
-- OUTPUT_FORMAT is the output family this parser reads: the plain text of
-- Claude Code's inline (non-alternate-screen) terminal UI.
local OUTPUT_FORMAT = "claude_code_tui"

-- The version the banner showed, remembered: the banner scrolls away.
local seen_version = nil

-- override_version is the version the parser_override intent pinned the
-- preset selection to (the contract's parser-level override), or nil.
local override_version = nil

-- version_info reads the banner on this screen (or remembers the last one)
-- and returns the parser metadata's version fields and the anomalies they
-- imply.
local function version_info(screen_version)
  local pm, anomalies = {}, {}
  if screen_version then
    if seen_version and seen_version ~= screen_version then
      pm.baseline_invalidated = true
      anomalies[#anomalies + 1] = { code = "baseline_invalidated",
        message = "the banner changed from Claude Code " .. seen_version .. " to " .. screen_version .. " in this session" }
    end
    seen_version = screen_version
    pm.selection_source = "detected"
  elseif seen_version then
    pm.selection_source = "remembered"
  end
  local v = screen_version or seen_version
  pm.detected_version = v
  if override_version then
    pm.requested_version = override_version
    pm.selection_source = "override"
    anomalies[#anomalies + 1] = { code = "preset_override_used",
      message = "preset selection pinned to Claude Code " .. override_version .. " by parser_override (banner: " .. (v or "none seen") .. ")" }
    v = override_version
  end
  if not v then
    pm.selection_source = "version_floor"
    anomalies[#anomalies + 1] = { code = "unknown_version_floor_used",
      message = "no Claude Code version banner seen; using the " .. VERSION_FLOOR .. " preset" }
  elseif not KNOWN_VERSIONS[v] then
    pm.selection_source = "version_floor"
    anomalies[#anomalies + 1] = { code = "unknown_version_floor_used",
      message = "Claude Code " .. v .. " is not a version this preset knows; using the " .. VERSION_FLOOR .. " preset" }
  end
  return pm, anomalies
end

-- parser_metadata assembles every field of the contract's
-- ShadowParserMetadata that applies: output_variant names the layout the
-- screen was read as (the live prompt box, or a dialog/page/panel without
-- it); output_format_match is false when the screen matched no known
-- shape. requested_version is the parser_override intent's version.
local function parser_metadata(res, variant, screen_version)
  local pm, anomalies = version_info(screen_version)
  pm.provider_id = PROVIDER_ID
  pm.parser_preset_id = PRESET_ID
  pm.parser_preset_version = PRESET_VERSION
  pm.output_format = OUTPUT_FORMAT
  pm.output_variant = variant
  pm.output_format_match = not res.unmatched
  if res.unmatched then
    anomalies[#anomalies + 1] = { code = "unrecognized_screen",
      message = "the screen matched no Claude Code state: " .. res.evidence }
  end
  if res.fallback then
    anomalies[#anomalies + 1] = { code = "state_fallback", message = res.state .. " by fallback: " .. res.fallback }
  end
  for _, u in ipairs(res.unknown_rows or {}) do
    anomalies[#anomalies + 1] = { code = "unrecognized_screen", message = "row " .. u.row .. ": " .. u.text }
  end
  return pm, anomalies
end

local function assessment(res, variant, screen_version)
  local a = ASSESS[res.state] or { "unknown", "unknown", "unknown", "unknown" }
  local meta = res.metadata or {}
  local pm, anomalies = parser_metadata(res, variant, screen_version)
  local out = { availability = a[1], business_state = a[2], input_mode = a[3], ui_context = a[4],
    parser_metadata = pm }
  if #anomalies > 0 then
    out.anomalies = anomalies
  end
  if res.state == "starting" and meta.onboarding then
    out.business_state, out.input_mode, out.ui_context = "awaiting_operator", "modal", "selection_menu"
  elseif res.state == "starting" and meta.onboarding == nil and res.confidence < 0.5 then
    out.availability = "unknown"
  end
  if meta.exited then
    out.availability, out.business_state, out.input_mode, out.ui_context = "disconnected", "unknown", "closed", "exited"
  end
  if meta.input and starts(meta.input, "/") then
    out.ui_context = "slash_command"
  end
  if out.business_state == "awaiting_operator" and res.state ~= "waiting_for_external_editor" then
    local perm = meta.permission
    local q = meta.question
    out.operator_blocked_excerpt = (perm and (perm.title .. ": " .. perm.question))
      or (q and q.text) or res.evidence
  end
  return out
end

-- INPUT_SETTLE_MS is how long after a state's first frame Claude Code
-- takes keys (the host holds an intent's keys until then). 2.1.330 refuses
-- keys for 150 ms after a dialog's first paint, and each refused key
-- restarts the window: sent 0-100 ms after the trust or permission dialog
-- appeared, 0-5 keys in 8 were lost; from 175-200 ms on, none (README.md,
-- "Input readiness"). 300 ms is twice the window. The other dialogs share
-- that code; the onboarding pages and the prompt took keys at once.
local INPUT_SETTLE_MS = {
  waiting_for_trust = 300,
  waiting_for_permission = 300,
  waiting_for_plan_approval = 300,
  waiting_for_enter_plan_mode = 300,
  waiting_for_model_select = 300,
  waiting_for_user_input = 300,
  waiting_for_login = 300,
}

-- Dialog instances (ptywright.dialog.instances). A permission dialog's
-- content key (dialog_of's key: the tool, title, description and preview)
-- gets a count that moves on for a dialog with another key, or any dialog
-- after the live prompt box was seen (the previous one was answered).
local dialog_ids = ptywright.dialog.instances()

local function number_dialog(res, prompt_box)
  local d = res.metadata and res.metadata.dialog
  local id = dialog_ids(d and d.key, prompt_box)
  if not d then
    return
  end
  d.id, d.key = id, nil
  res.metadata.dialog_id = id
  if last_menu and last_menu.kind == "permission" then
    last_menu.dialog_id = id
  end
end

-- classify names the state the screen shows. See the file comment.
function M.classify(ctx)
  local screen = ctx.screen
  if screen == nil or screen == "" then
    screen = (ctx.body_text or "") .. "\n" .. (ctx.status_text or "")
  end
  -- Set afresh on every call, so a call that failed leaves nothing behind.
  trace = ctx.explain and {} or nil
  local lines = split_lines(screen)
  local last = last_nonblank(lines) or 0
  local model = scan_model(screen, lines, last)
  if model then
    last_model = model
  end
  last_menu = nil
  local box = find_box(lines, last)
  local res, variant
  if box then
    res = classify_box(ctx, lines, last, box)
    variant = "prompt_box"
    if res.state == "ready" or res.state == "completed_turn" or res.state == "error" then
      last_menu = { kind = "prompt", options = {} }
    end
  else
    tried("claude.prompt_box", "no live prompt box (a '❯' row between two full-width rules)")
    res = classify_dialog(ctx, lines, last)
    variant = last == 0 and "blank" or "no_prompt_box"
  end
  number_dialog(res, box ~= nil)
  res.assessment = assessment(res, variant, string.match(screen, "Claude Code v(%d+%.%d+%.%d+[%w%.%-]*)"))
  res.fallback, res.unmatched, res.unknown_rows = nil, nil, nil
  last_state = res.state
  last_input = res.metadata and res.metadata.input
  res.input_settle_ms = INPUT_SETTLE_MS[res.state]
  res.sequence = ctx.sequence
  res.considered, trace = trace, nil
  return res
end

-- Projection --------------------------------------------------------------------

-- PROJECTOR_ID names project's projector (ProjectionMetadata.projector_id).
local PROJECTOR_ID = "claude-code.v1"

-- LOGO_GLYPHS start the logo header's three rows (after leading spaces):
-- " ▐▛███▛█   Claude Code v2.1.330", "▝▜██████▀  model", " ▝▝   ▝▝   cwd".
-- No transcript row starts with them.
local LOGO_GLYPHS = { "▐▛", "▝▜", "▝▝" }

local function is_logo_row(l)
  local _, rest = indent(l)
  return starts(rest, LOGO_GLYPHS)
end

-- is_hint_row: a dialog's key-hint footer ("Esc to cancel · Tab to amend",
-- "Enter to select · ↑/↓ to navigate · Esc to cancel", "Press Enter to
-- continue…").
local HINT_STARTS = { "Esc to ", "Enter to ", "Press Enter to ", "↑/↓ to " }
local function is_hint_row(l)
  return starts(trim(l), HINT_STARTS)
end

-- project(ctx) returns the dialog projection of the screen: the transcript
-- and, when one is up, the dialog Claude Code shows in place of the prompt
-- box, without its chrome: the logo header, release notices ("▎ ..."),
-- the live prompt box and everything under it (status row, hints,
-- shortcuts), the spinner or retry row and the slash-command popup above
-- the box, right-aligned hint rows, and the dialogs' key-hint footers.
function M.project(ctx)
  local screen = ctx.screen
  if screen == nil or screen == "" then
    screen = (ctx.body_text or "") .. "\n" .. (ctx.status_text or "")
  end
  local lines = split_lines(screen)
  local last = last_nonblank(lines) or 0
  local keep = {}
  local box = find_box(lines, last)
  if box then
    last = box.top - 1
    -- Right-aligned hints and the spinner/retry rows just above the box.
    local k = last
    while k >= 1 and k > box.top - 8 do
      local l = lines[k]
      if is_blank(l) or indent(l) >= 20 or spinner_info(l) then
        last = k - 1
      elseif starts(box.input, "/") and (starts_after_indent(l, "/") or starts_after_indent(l, CURSOR .. " /")) then
        last = k - 1 -- the slash-command popup
      else
        break
      end
      k = k - 1
    end
  end
  for i = 1, last do
    local l = lines[i]
    local drop = false
    if is_logo_row(l) then
      drop = true
    elseif starts(l, "▎ ") or starts(l, "▎") and is_blank(string.sub(l, #"▎" + 1)) then
      drop = true
    elseif is_hint_row(l) then
      drop = true
    end
    if not drop then
      keep[#keep + 1] = l
    end
  end
  local text = table.concat(keep, "\n")
  text = string.gsub(text, "\n[ \t]*\n[%s]*\n", "\n\n")
  text = string.gsub(text, "^%s*\n", "")
  text = string.gsub(text, "%s+$", "")
  return { dialog_text = text, projector_id = PROJECTOR_ID }
end

-- Intents ---------------------------------------------------------------------

-- plan returns an action plan; unless it is empty, it starts by marking
-- the transcript (INPUT_MARKER) and carries expect, the change the keys
-- must cause for the host's receipt to say "confirmed" (default: the state
-- or its evidence changes, i.e. the dialog or page the keys answered is
-- gone). No plan here is marked safe to resend: a second Enter or digit
-- could answer the next dialog.
local function plan(actions, last_intent, expect)
  if #actions == 0 then
    return { actions = actions, last_intent = last_intent }
  end
  table.insert(actions, 1, action.mark_transcript(INPUT_MARKER))
  return { actions = actions, last_intent = last_intent, expect = expect or { leave = true } }
end

-- Expectations other than leaving the current state.
local CHANGED = { changed = true }
-- The busy status row ("esc to interrupt"), as BUSY_STATUS below.
local BUSY_STATUS_RE = "─{10,}\\n  [^\\n]*· esc to interrupt"

-- expect_submitted: the prompt shows in the history, or a turn is running.
local function expect_submitted(line)
  local branches = { matcher.screen_regex(BUSY_STATUS_RE) }
  if line then
    branches[#branches + 1] = matcher.contains_text(line)
  end
  return { matcher = matcher.any(branches) }
end

local function want_string(input, field, intent)
  local v = input and input[field]
  if type(v) ~= "string" or v == "" then
    ptywright.invalid_params(intent .. ": params." .. field .. " must be a non-empty string")
  end
  return v
end

-- select_actions moves the menu cursor to option position pos (1-based in
-- the menu's list) and confirms: a numbered menu takes the digit alone (it
-- selects at once in Claude Code 2.1.330); an unnumbered one takes arrows
-- and Enter.
local function select_actions(menu, pos)
  local opt = menu.options[pos]
  if menu.numbered and opt.index and opt.index >= 1 and opt.index <= 9 then
    return { action.text(tostring(opt.index)) }
  end
  local acts = {}
  local from = menu.selected or 1
  local key = "down"
  local steps = pos - from
  if steps < 0 then
    key, steps = "up", -steps
  end
  for _ = 1, steps do
    acts[#acts + 1] = action.key(key)
  end
  acts[#acts + 1] = action.key("enter")
  return acts
end

-- find_label returns the position of the option whose label matches text:
-- exactly (ignoring case), else by prefix, else by substring.
local function find_label(menu, text)
  local want = string.lower(trim(text))
  for _, how in ipairs({ "exact", "prefix", "contains" }) do
    for i, o in ipairs(menu.options) do
      local l = string.lower(o.label or "")
      if (how == "exact" and l == want) or (how == "prefix" and starts(l, want))
        or (how == "contains" and has(l, want)) then
        return i
      end
    end
  end
  return nil
end

local function labels(menu)
  local out = {}
  for _, o in ipairs(menu.options) do
    out[#out + 1] = string.format("%q", o.label or "")
  end
  return table.concat(out, ", ")
end

local function take_menu()
  local m = last_menu
  last_menu = nil
  return m
end

-- The states whose prompt box takes a prompt: send_prompt's keys wait for
-- one (the host's await), never into a screen the plugin does not know.
local PROMPT_STATES = { "ready", "completed_turn", "error" }

function M.send_prompt(input)
  local prompt = want_string(input, "prompt", "send_prompt")
  local at_prompt = false
  for _, s in ipairs(PROMPT_STATES) do
    at_prompt = at_prompt or last_state == s
  end
  if at_prompt and last_input then
    -- The paste would append to it, and Claude Code would get both as one
    -- prompt.
    ptywright.refuse("send_prompt: the prompt box still holds text (" .. string.format("%q", string.sub(last_input, 1, 80)) ..
      "); clear it first (key escape twice) or send it as it is with key enter")
  end
  last_menu = nil
  submitted_line = history_line(prompt)
  local p = plan({
    action.bracketed_paste(prompt),
    action.key("enter"),
  }, "prompt_submitted", expect_submitted(submitted_line))
  -- Claude Code can take the paste and drop the Enter that follows it (seen
  -- on the first prompt after start-up): Enter again submits what is in the
  -- box, and on an empty box does nothing, so it is safe to retry.
  p.retry = { action.key("enter") }
  p.await = { states = PROMPT_STATES }
  return p
end

-- trust_yes and trust_no answer the trust dialog whose menu is given
-- (defined with approve_trust and deny_trust below).
local trust_yes, trust_no

-- answer names, for the host's check at the moment of the key, the
-- permission dialog a plan answers and the option at position pos its
-- keys choose; highlighted when the keys act on the highlight (Enter).
-- nil off a permission dialog.
local function answer(menu, pos, highlighted)
  if not (menu and menu.dialog_id) then
    return nil
  end
  local o = pos and menu.options[pos]
  return { dialog_id = menu.dialog_id, index = o and o.index or nil, label = o and o.label or nil, highlighted = highlighted }
end

-- position returns the position of the first option from position from
-- on whose label passes ok.
local function position(menu, from, ok)
  for i = from, #menu.options do
    if ok(menu.options[i].label or "") then
      return i
    end
  end
  return nil
end

-- A permission dialog's answers, by the labels Claude Code 2.1.330 gives
-- them: "Yes" (with Tab to amend open: "Yes, and tell Claude what to do
-- next"), the first; "Yes, and don't ask again for ..." / "Yes, and always
-- allow access to ..." / "Yes, and switch to accept edits ... for this
-- session" (not "Yes, and switch to auto mode", which approves every
-- later tool); "No" / "No, and tell Claude what to do differently (esc)".
local function is_yes(l)
  return starts(l, "Yes")
end

local function is_always(l)
  return starts(l, "Yes, and ") and not has(l, "auto mode")
end

local function is_no(l)
  return l == "No" or starts(l, "No,") or starts(l, "No ")
end

local function approve_permission(menu)
  local pos = position(menu, 1, is_yes)
  if not pos then
    ptywright.refuse("approve: the permission dialog has no \"Yes\" option (options: " .. labels(menu) .. ")")
  end
  if menu.selected == pos then
    local p = plan({ action.key("enter") })
    p.answer = answer(menu, pos, menu.options[pos].index)
    return p
  end
  local p = plan(select_actions(menu, pos))
  p.answer = answer(menu, pos)
  return p
end

function M.approve(_input)
  local menu = take_menu()
  if menu and menu.kind == "trust" then
    return trust_yes(menu)
  end
  if menu and menu.kind == "permission" then
    return approve_permission(menu)
  end
  if menu and menu.kind == "api_key" then
    local pos = find_label(menu, "Yes")
    if pos then
      return plan(select_actions(menu, pos))
    end
  end
  if menu and menu.numbered and menu.selected and menu.selected ~= 1
    and menu.options[1] and starts(menu.options[1].label or "", "Yes") then
    return plan(select_actions(menu, 1))
  end
  return plan({ action.key("enter") })
end

-- approve_always picks the option of a permission dialog that approves
-- more than this once (is_always), by its digit.
function M.approve_always(_input)
  local menu = take_menu()
  if not (menu and menu.kind == "permission") then
    ptywright.refuse("approve_always: no permission dialog on screen (state " .. tostring(last_state) .. ")")
  end
  local pos = position(menu, 2, is_always)
  if not pos then
    ptywright.refuse("approve_always: the permission dialog has no option that allows more than once (options: " .. labels(menu) .. ")")
  end
  local p = plan(select_actions(menu, pos))
  p.answer = answer(menu, pos)
  return p
end

function M.deny(_input)
  local menu = take_menu()
  if menu and menu.kind == "trust" then
    return trust_no(menu)
  end
  if menu and menu.kind == "permission" then
    -- Escape is the dialog's "No" (it ends the turn).
    local p = plan({ action.key("escape") })
    p.answer = answer(menu, position(menu, 1, is_no))
    return p
  end
  if menu and menu.kind == "api_key" then
    local pos = find_label(menu, "No")
    if pos then
      return plan(select_actions(menu, pos))
    end
  end
  return plan({ action.key("escape") })
end

function M.choose_option(input)
  input = input or {}
  local menu = take_menu()
  local idx = input.index
  local label = input.label
  local opt = input.option
  if type(opt) == "number" then
    idx = opt
  elseif type(opt) == "string" then
    if string.match(opt, "^%s*%d+%s*$") then
      idx = tonumber(opt)
    else
      label = opt
    end
  end
  local pos = nil
  if idx ~= nil then
    if type(idx) ~= "number" or idx < 1 or idx ~= math.floor(idx) then
      ptywright.invalid_params("choose_option: params.index must be a positive integer")
    end
    if menu and #menu.options > 0 then
      for i, o in ipairs(menu.options) do
        if o.index == idx then
          pos = i
        end
      end
      if not pos and not menu.numbered then
        ptywright.invalid_params("choose_option: no option " .. idx .. " (options: " .. labels(menu) .. ")")
      end
    end
    if not pos then
      -- No menu seen (or the option is scrolled out of view): the digit.
      local acts = { action.text(tostring(idx)) }
      if type(input.text) == "string" then
        acts[#acts + 1] = action.text(input.text)
        acts[#acts + 1] = action.key("enter")
      end
      return plan(acts)
    end
  elseif type(label) == "string" and label ~= "" then
    if not menu or #menu.options == 0 then
      ptywright.invalid_params("choose_option: no menu on screen to pick " .. string.format("%q", label) .. " from")
    end
    pos = find_label(menu, label)
    if not pos then
      ptywright.invalid_params("choose_option: no option labelled " .. string.format("%q", label) .. " (options: " .. labels(menu) .. ")")
    end
  else
    ptywright.invalid_params("choose_option: params need index, option or label")
  end
  local acts = select_actions(menu, pos)
  if type(input.text) == "string" then
    -- "Type something." options take free text after their digit.
    acts[#acts + 1] = action.text(input.text)
    acts[#acts + 1] = action.key("enter")
  end
  local p = plan(acts)
  local o = menu.options[pos]
  p.answer = answer(menu, pos, not (menu.numbered and o.index and o.index <= 9) and menu.selected and menu.options[menu.selected].index or nil)
  return p
end

-- cancel's keys are taken once "esc to interrupt" leaves the status row
-- (the state alone would not tell: last_intent makes it "cancelling" at
-- once).
local EXPECT_CANCELLED = { matcher = matcher.none({ matcher.screen_regex(BUSY_STATUS_RE) }), within_ms = 3000 }

function M.cancel(_input)
  last_menu = nil
  return plan({ action.key("escape") }, "cancelling", EXPECT_CANCELLED)
end

function M.force_cancel(_input)
  last_menu = nil
  return plan({ action.key("escape"), action.key("escape") }, "cancelling", EXPECT_CANCELLED)
end

-- The states whose prompt box takes typed text, a running turn's
-- included: steer's keys wait for one, never into a screen the plugin
-- does not know or a dialog.
local TYPING_STATES = { "thinking", "cancelling", "ready", "completed_turn", "error" }

function M.steer(input)
  local prompt = want_string(input, "prompt", "steer")
  local p = plan({ action.bracketed_paste(prompt), action.key("enter") }, nil, expect_submitted(history_line(prompt)))
  p.await = { states = TYPING_STATES, within_ms = 3000 }
  return p
end

function M.key(input)
  local raw = want_string(input, "key", "key")
  local times = input.times or 1
  if type(times) ~= "number" or times < 1 or times > 100 or times ~= math.floor(times) then
    ptywright.invalid_params("key: params.times must be an integer from 1 to 100")
  end
  -- action.key_name folds "Shift-Tab", "esc", "Ctrl+C" into the host's
  -- names; k is the folded name either way.
  local key, k = action.key_name(raw)
  local a
  if key then
    a = function() return action.key(key) end
  elseif k == "ctrl_j" then
    a = function() return action.text("\n") end
  else
    a = function() return action.text(raw) end
  end
  local acts = {}
  for _ = 1, times do
    acts[#acts + 1] = a()
  end
  last_menu = nil
  if k == "ctrl_g" then
    return plan(acts, "external_editor", CHANGED)
  end
  return plan(acts, nil, CHANGED)
end

-- approve_trust picks "Yes, I trust this folder" wherever the dialog puts
-- it. In 2.1.330 it is second and unnumbered under a preselected "No, exit"
-- (Enter there quits Claude Code), so without a menu it sends Down, Enter.
trust_yes = function(menu)
  if menu and menu.kind == "trust" then
    local pos = find_label(menu, "Yes, I trust this folder") or find_label(menu, "Yes")
    if pos then
      return plan(select_actions(menu, pos))
    end
  end
  return plan({ action.key("down"), action.key("enter") })
end

function M.approve_trust(_input)
  return trust_yes(take_menu())
end

trust_no = function(menu)
  if menu and menu.kind == "trust" then
    local pos = find_label(menu, "No, exit") or find_label(menu, "No")
    if pos then
      return plan(select_actions(menu, pos))
    end
  end
  return plan({ action.key("escape") })
end

function M.deny_trust(_input)
  return trust_no(take_menu())
end

-- dismiss_welcome gets past an onboarding page that needs no decision
-- (theme picker, security notes). The API-key page is a decision: pick with
-- choose_option {label = "Yes"} or {label = "No (recommended)"}; Enter
-- there declines the key.
function M.dismiss_welcome(_input)
  local menu = take_menu()
  if menu and menu.kind == "api_key" then
    error("dismiss_welcome: the API-key page asks a question (Enter declines the key); use choose_option with label \"Yes\" or \"No (recommended)\"", 0)
  end
  if menu and menu.kind == "prompt" then
    return plan({})
  end
  return plan({ action.key("enter") })
end

function M.expand(_input)
  last_menu = nil
  return plan({ action.key("ctrl_o") }, nil, CHANGED)
end

function M.model_effort_left(_input)
  return plan({ action.key("left") }, nil, CHANGED)
end

function M.model_effort_right(_input)
  return plan({ action.key("right") }, nil, CHANGED)
end

function M.slash_command(input)
  input = input or {}
  local cmd = input.command
  if cmd == nil then
    cmd = input.name
  end
  if type(cmd) ~= "string" or trim(cmd) == "" then
    ptywright.invalid_params("slash_command: params.command (or params.name) must be a non-empty string")
  end
  cmd = trim(cmd)
  if not starts(cmd, "/") then
    cmd = "/" .. cmd
  end
  last_menu = nil
  return plan({ action.bracketed_paste(cmd), action.key("enter") }, nil, CHANGED)
end

-- parser_override pins the preset's version selection for this session
-- (the parsing contract's parser-level override): params.version is the
-- Claude Code version to read screens as, absent to follow the banner
-- again. While set, every assessment reports requested_version,
-- selection_source "override" and a preset_override_used anomaly. It sends
-- no keys.
function M.parser_override(input)
  local v = input and input.version
  if v ~= nil and (type(v) ~= "string" or not string.match(v, "^%d+%.%d+%.%d+[%w%.%-]*$")) then
    ptywright.invalid_params("parser_override: params.version must be a Claude Code version such as 2.1.330, or absent to clear the override")
  end
  override_version = v
  return plan({})
end

function M.attach_file(input)
  local path = want_string(input, "path", "attach_file")
  return plan({ action.bracketed_paste(path) }, nil, CHANGED)
end

-- Wait matchers -------------------------------------------------------------------

-- Go RE2 expressions over the screen's plain text (rows joined by "\n").

-- The status row of an idle prompt: a mode indicator and optional hints,
-- never "esc to interrupt".
local IDLE_STATUS = "  (?:⏵⏵|⏸)[^\\n·]*(?: · (?:\\? for shortcuts|← for agents))*(?: {2,}[^\\n]*)?"
-- The live prompt box, empty (or showing a dim placeholder), with an idle
-- status row, at the end of the screen.
local IDLE_BOX = "\\n─{10,}\\n❯[\\x{a0} ]?(?:Resend your message to try again|Once fixed, resend your message|Press up to edit queued messages|Run /rewind to go back)?\\n─{10,}\\n"
  .. IDLE_STATUS .. "\\s*\\z"
-- The same with anything in the input row: Escape before the first answer
-- line puts the cancelled prompt back there.
local IDLE_BOX_ANY_INPUT = "\\n─{10,}\\n❯[\\x{a0} ]?[^\\n]*\\n(?:[^\\n]*\\n){0,10}?─{10,}\\n"
  .. IDLE_STATUS .. "\\s*\\z"
-- A busy status row right under the box.
local BUSY_STATUS = BUSY_STATUS_RE
-- A running spinner row ("· Brewing… (0s · ↓ 27 tokens)"); a finished
-- turn's row has no ellipsis ("✻ Cooked for 3s · done"). The status row
-- does not always say "esc to interrupt" while one runs.
local BUSY_SPINNER = "(?m)^[·✢✳✶✻✽*] \\S+…"

-- idle_box matches the prompt box regex re while no spinner runs above it:
-- a spinner that pauses longer than the settle window must not pass for
-- an idle prompt (the screen, not the byte stream, decides stability).
local function idle_box(re)
  return matcher.all({ matcher.screen_regex(re), matcher.none({ matcher.screen_regex(BUSY_SPINNER) }) })
end
-- Dialogs a turn can stop at, each anchored on its footer or last option
-- at the end of the screen.
local DIALOG_ENDS = {
  -- permission dialogs
  "\\n ❯? ?\\d+\\. [^\\n]*(?:\\n[^\\n]*){0,8}\\n Esc to cancel[^\\n]*\\s*\\z",
  -- the web fetch dialog, which has no footer: its last option ends it
  "\\n +\\d+\\. No[^\\n]*\\(esc\\)\\s*\\z",
  -- AskUserQuestion
  "\\nEnter to select · [^\\n]*\\s*\\z",
  -- plan approval and enter-plan-mode
  "(?:Exit|Enter) plan mode\\?\\n(?:[^\\n]*\\n){1,16}? +(?:❯ )?(?:\\d+\\. )?[^\\n]*\\s*\\z",
  -- "Switch model?" and other confirmations
  "\\n  Enter to confirm · Esc to cancel\\s*\\z",
}
-- Start-up pages and other screens that wait for the user.
local INPUT_PAGES = {
  "\\n Choose the text style",
  "\\n  Do you want to use this API key\\?\\n",
  "\\n Press Enter to continue\\s*\\z",
  "\\n Enter to confirm · Esc to cancel\\s*\\z",
  "\\n Select login method:\\n",
  "\\n Paste code here if prompted\\n",
  "\\n  Select model\\n",
  "▔{10,}\\n  (?:Settings|Help|Rewind) ",
  "\\n  [^\\n]*Esc to (?:close|go back|clear|cancel)\\s*\\z",
  "\\n  Showing detailed transcript · ",
  "Save and close the editor to continue",
  "(?:\\n~){3}",
  "\\nClaude Code didn't start because this folder isn't trusted",
  "\\n Unable to connect to Anthropic services\\n",
}

local function stable_ms(input)
  local ms = input and input.completed_turn_stable_ms
  if type(ms) ~= "number" or ms < 0 then
    ms = 300
  end
  return ms
end

local function since_input()
  return matcher.lua("claude-code", "output_since_input", { marker = INPUT_MARKER })
end

local function regexes(list, into)
  for _, re in ipairs(list) do
    into[#into + 1] = matcher.screen_regex(re)
  end
  return into
end

-- settled matches when one of branches holds on a screen that changed
-- since the last input and then stayed unchanged for ms, or when claude
-- exited.
local function settled(branches, ms)
  return matcher.any({
    matcher.all({ matcher.any(branches), since_input(), matcher.screen_stable(ms) }),
    matcher.process_exited(),
  })
end

-- wait_turn_matcher waits for the turn send_prompt (or approve, deny,
-- choose_option ...) started to stop: the idle prompt (completed, error,
-- interrupted) or a dialog asking the user (permission, question, plan),
-- settled for completed_turn_stable_ms; or claude exited. Its lua branch
-- (output_since_input) needs the plugin registry bound to the wait
-- (HandleOptions.Predicates).
function M.wait_turn_matcher(input)
  local m = settled(regexes(DIALOG_ENDS, { idle_box(IDLE_BOX) }), stable_ms(input))
  if submitted_line then
    -- Between Enter and the next frame Claude Code shows the old turn under
    -- an empty input box; on a loaded machine that frame can outlast the
    -- settle window. The submitted prompt in the history (plain space after
    -- the chevron; the live input row has a no-break space) proves the new
    -- turn is on screen.
    m = matcher.any({ matcher.all({ matcher.contains_text(submitted_line), m }), matcher.process_exited() })
  end
  return m
end

-- wait_cancel_settled_matcher waits, after cancel, for the idle prompt (or
-- a dialog) to stay unchanged for completed_turn_stable_ms. The input row
-- may hold text: cancelling before the first answer line arrives puts the
-- prompt back there.
function M.wait_cancel_settled_matcher(input)
  return settled(regexes(DIALOG_ENDS, { idle_box(IDLE_BOX_ANY_INPUT) }), stable_ms(input))
end

-- wait_text_matcher waits until the screen shows params.text (for example
-- the first line of an answer that is still streaming), or claude exited.
function M.wait_text_matcher(input)
  local text = input and input.text
  if type(text) ~= "string" or text == "" then
    ptywright.invalid_params("wait_text_matcher: params.text must be a non-empty string")
  end
  return matcher.any({ matcher.contains_text(text), matcher.process_exited() })
end

-- wait_input_matcher waits for any screen that waits for the user: a
-- start-up page (theme, API key, security notes, trust, login), the idle
-- prompt, a dialog or a panel; or claude exited.
function M.wait_input_matcher(input)
  local branches = regexes(DIALOG_ENDS, { idle_box(IDLE_BOX) })
  return settled(regexes(INPUT_PAGES, branches), stable_ms(input))
end

-- wait_busy_matcher waits until a turn is running ("esc to interrupt" in
-- the status row) or claude exited. It does not wait for the screen to
-- settle: a busy screen keeps changing.
function M.wait_busy_matcher(_input)
  return matcher.any({ matcher.screen_regex(BUSY_STATUS), matcher.process_exited() })
end

-- Predicates ----------------------------------------------------------------------

-- output_since_input holds once claude has printed something since the
-- marker the last intent set (or when there is no marker yet).
function M.output_since_input(input)
  local name = (input.params and input.params.marker) or INPUT_MARKER
  local at = input.markers and input.markers[name]
  if at == nil then
    return { matched = true, evidence = "no " .. name .. " marker yet" }
  end
  local grown = (input.cursor or 0) - at
  return { matched = grown > 0, evidence = grown .. " characters of output since " .. name }
end

-- Catalogue -----------------------------------------------------------------------

local NO_PARAMS = { type = "object", properties = {}, additionalProperties = false }
-- The params every answer takes, checked by the host at the moment of the
-- key: the dialog the caller saw (metadata.dialog.id) and the option it
-- means.
local ANSWER_PARAMS = { type = "object", additionalProperties = false, properties = {
  dialog_id = { type = "string", description = "the dialog the caller saw (the state's metadata.dialog.id); another dialog on screen at the moment of the key is -32008 dialog_mismatch and nothing is pressed" },
  label = { type = "string", description = "the option the caller means, by (a part of) its label; the keys choosing another is -32008" },
  index = { type = "integer", minimum = 1, description = "the option the caller means, by its number" },
} }

local function str_param(name, desc)
  return { type = "object", required = { name },
    properties = { [name] = { type = "string", description = desc } } }
end

function M.describe()
  return {
    intents = {
      { name = "send_prompt", description = "Bracketed-pastes the prompt and presses Enter; last_intent = prompt_submitted. The keys wait for a prompt box the plugin knows is ready (ready, completed_turn or error; receipt not_sent when none comes); refused (-32006) when the box still holds typed text.",
        params_schema = str_param("prompt", "the prompt text") },
      { name = "approve", description = "Accepts the dialog on screen: option 1 of a permission / plan dialog (Enter, or its digit when the cursor moved), \"Yes\" on the API-key page, \"Yes, I trust this folder\" on the trust dialog. On a permission dialog the host checks, at the moment of the key, that the dialog and its \"Yes\" option are the ones the plan was made on (and the caller's dialog_id, label, index).",
        params_schema = ANSWER_PARAMS },
      { name = "approve_always", description = "On a permission dialog, picks the option that allows more than once (\"Yes, and don't ask again for ...\", \"Yes, and always allow access to ...\", \"Yes, and switch to accept edits ... for this session\"; never \"switch to auto mode\") by its digit, label-checked like approve.",
        params_schema = ANSWER_PARAMS },
      { name = "deny", description = "Escape: dismisses the dialog. On a permission dialog this is its \"No\" and ends the whole turn (state ready, 'Interrupted'), label-checked like approve. On the trust dialog: deny_trust.",
        params_schema = ANSWER_PARAMS },
      { name = "choose_option", description = "Picks a menu option by its number or label (labels from the last classify). Numbered menus take the digit alone (it selects at once); unnumbered ones take arrows and Enter. Optional text is typed after it (for 'Type something.').",
        params_schema = { type = "object", properties = {
          index = { type = "integer", minimum = 1 },
          option = { type = { "string", "integer" }, description = "a number or a label" },
          label = { type = "string" },
          text = { type = "string", description = "free text typed after choosing" },
          dialog_id = { type = "string", description = "the dialog the caller saw (metadata.dialog.id), checked at the moment of the key" },
        } } },
      { name = "cancel", description = "Escape; last_intent = cancelling, so the state is cancelling until the screen settles.",
        params_schema = NO_PARAMS },
      { name = "force_cancel", description = "Escape twice; last_intent = cancelling. On an idle prompt the second Escape opens Rewind.",
        params_schema = NO_PARAMS },
      { name = "steer", description = "Bracketed-pastes a prompt and presses Enter mid-turn (Claude Code queues it); last_intent unchanged.",
        params_schema = str_param("prompt", "the text to inject") },
      { name = "key", description = "Sends a named key (aliases: esc, return, shift-tab, ctrl-c ...) or types the string verbatim; times repeats it. ctrl_g sets last_intent = external_editor.",
        params_schema = { type = "object", required = { "key" }, properties = {
          key = { type = "string" }, times = { type = "integer", minimum = 1, maximum = 100 } } } },
      { name = "approve_trust", description = "Picks 'Yes, I trust this folder' on the workspace-trust dialog by its label (Down, Enter in 2.1.330, where 'No, exit' comes first).",
        params_schema = NO_PARAMS },
      { name = "deny_trust", description = "Picks 'No, exit' on the workspace-trust dialog (Claude Code exits).",
        params_schema = NO_PARAMS },
      { name = "dismiss_welcome", description = "Enter on an onboarding page that needs no decision (theme picker, security notes); nothing at the prompt. Refuses the API-key page.",
        params_schema = NO_PARAMS },
      { name = "expand", description = "ctrl+o: toggles the detailed transcript view.", params_schema = NO_PARAMS },
      { name = "model_effort_left", description = "Left in /model: less effort.", params_schema = NO_PARAMS },
      { name = "model_effort_right", description = "Right in /model: more effort.", params_schema = NO_PARAMS },
      { name = "slash_command", description = "Bracketed-pastes /command and presses Enter, without marking a turn.",
        params_schema = { type = "object", properties = {
          command = { type = "string", description = "usage, /usage, model sonnet ..." },
          name = { type = "string" } } } },
      { name = "attach_file", description = "Bracketed-pastes a path into the prompt without pressing Enter.",
        params_schema = str_param("path", "the file to attach") },
      { name = "parser_override", description = "Sends no keys: pins the parser's version selection to params.version (absent: follow the banner again); assessments then report requested_version, selection_source override and a preset_override_used anomaly.",
        params_schema = { type = "object", properties = { version = { type = "string", pattern = "^[0-9]+\\.[0-9]+\\.[0-9]+", description = "a Claude Code version, e.g. 2.1.330" } } } },
    },
    wait_matchers = {
      { name = "wait_turn_matcher", description = "The turn stopped: idle prompt (completed, error, interrupted), a permission / question / plan dialog, or claude exited; settled for completed_turn_stable_ms. Needs the plugin registry bound to the wait (its output_since_input predicate).",
        params_schema = { type = "object", properties = { completed_turn_stable_ms = { type = "integer" } } } },
      { name = "wait_cancel_settled_matcher", description = "After cancel: idle prompt (its input row may hold the cancelled prompt, put back when nothing was answered yet) or a dialog, settled for completed_turn_stable_ms, or claude exited. Needs the plugin registry.",
        params_schema = { type = "object", properties = { completed_turn_stable_ms = { type = "integer" } } } },
      { name = "wait_input_matcher", description = "Any screen that waits for the user (start-up pages, trust, login, idle prompt, dialogs, panels), changed since the last intent and settled, or claude exited. Needs the plugin registry.",
        params_schema = { type = "object", properties = { completed_turn_stable_ms = { type = "integer" } } } },
      { name = "wait_busy_matcher", description = "A turn is running: 'esc to interrupt' in the status row; or claude exited.",
        params_schema = NO_PARAMS },
      { name = "wait_text_matcher", description = "The screen shows params.text; or claude exited.",
        params_schema = str_param("text", "text to wait for") },
    },
    states = {
      { name = "starting", description = "Blank first frames and the onboarding pages (theme picker, API-key confirmation, security notes); metadata.onboarding names the page." },
      { name = "ready", description = "The live prompt is idle: nothing sent yet, typed input, or the last turn was interrupted (metadata.interrupted) by cancel or deny." },
      { name = "waiting_for_login", description = "Select login method, or the OAuth sign-in page (metadata.url)." },
      { name = "waiting_for_trust", description = "Workspace trust dialog (metadata.options, metadata.workspace)." },
      { name = "waiting_for_model_select", description = "/model picker or its 'Switch model?' confirmation (metadata.options, effort)." },
      { name = "waiting_for_enter_plan_mode", description = "'Enter plan mode?' dialog." },
      { name = "waiting_for_plan_approval", description = "'Exit plan mode?' dialog." },
      { name = "waiting_for_permission", description = "A tool permission dialog: metadata.permission {tool, summary, options}, metadata.dialog_id." },
      { name = "waiting_for_external_editor", description = "ctrl+g: an editor owns the terminal, or the GUI-editor wait message." },
      { name = "usage_screen", description = "/usage or /cost: the Settings panel on its Usage tab." },
      { name = "local_ui_screen", description = "Other local panels: /status, /config, /help, stats, Rewind, the ctrl+o transcript view (metadata.screen)." },
      { name = "waiting_for_user_input", description = "An AskUserQuestion dialog (metadata.question, options), a project's new MCP server to approve (metadata.mcp_server, options), the --resume session list (metadata.resume), or another numbered menu." },
      { name = "unrecognized", description = "A live prompt box with a status row, or a line above the box, that no rule knows: never submit-ready (anomaly unrecognized_screen names the row). With a busy sign in it the state is thinking instead." },
      { name = "exited", description = "Claude Code quit and printed how to resume the session (metadata.resume_session, resume_command)." },
      { name = "thinking", description = "A turn is running: 'esc to interrupt' in the status row or a spinner; metadata.activity, or metadata.error while retrying." },
      { name = "cancelling", description = "cancel was sent and the screen has not settled yet (derived from last_intent)." },
      { name = "completed_turn", description = "The turn ended with its '✻ … done' line; metadata.turn.text is the assistant's last answer block." },
      { name = "error", description = "An API error ended the turn, or start-up failed; metadata.error {kind, message, retry_after_s}." },
    },
    parser = { provider_id = PROVIDER_ID, parser_preset_id = PRESET_ID, parser_preset_version = PRESET_VERSION,
      output_format = OUTPUT_FORMAT, version_floor = VERSION_FLOOR, projector_id = PROJECTOR_ID,
      anomalies = { "unknown_version_floor_used", "baseline_invalidated", "preset_override_used", "unrecognized_screen", "state_fallback" } },
  }
end

return M
