-- The built-in adapter for Google's Gemini CLI (gemini 0.61.0).
--
-- classify(ctx) names the state a screen shows and reports the shared
-- surface assessment; the intents turn verbs into keys; the *_matcher
-- functions build waits; project(ctx) strips the CLI's chrome for the
-- dialog projection. The screens and keys this relies on are documented,
-- with a capture of each, in testdata/fixtures/gemini_cli/CAPTURES.md.
--
-- What the Gemini CLI looks like, in short: an Ink program that renders
-- inline (no alternate screen): the history grows from the top (the logo
-- and tips, prompts echoed as " > text", answers "✦ text", notices "ℹ",
-- "⚠", errors "✕", tool calls in boxes) and the live area sits at the
-- bottom: a status row (a Braille spinner "⠼ Thinking... (esc to cancel,
-- 7s)" while a turn runs, "? for shortcuts" right-aligned), a full-width
-- rule, the approval-mode row ("Shift+Tab to accept edits"), the composer
-- (" >   Type your message or @path/to/file" when empty) and a two-row
-- footer (workspace, sandbox, model). A dialog (folder trust, a tool's
-- confirmation, the loop-detection question, /model) replaces the live
-- area: a box whose bottom border ends the screen. After the folder-trust
-- answer the CLI restarts itself, and keys typed meanwhile are lost.
--
-- Fail-safe reading: a row of the live area that no rule knows makes the
-- reading unknown (never ready); a dialog counts only where the CLI draws
-- it (a box at the live edge, nothing of the live area below it); a turn
-- completes only after evidence it started (its prompt echoed, an answer
-- after it).

local M = {}

local action = ptywright.action
local matcher = ptywright.matcher

local PROVIDER_ID = "gemini-cli"
local PRESET_ID = "gemini-cli-tui"
local PRESET_VERSION = "1"
-- The version this preset was written and checked against; used when the
-- banner ("Gemini CLI v0.61.0", which scrolls away) was never seen or
-- names a version not listed below.
local VERSION_FLOOR = "0.61.0"
local KNOWN_VERSIONS = { ["0.61.0"] = true }
local OUTPUT_FORMAT = "gemini_cli_tui"
local PROJECTOR_ID = "gemini-cli.v1"

-- String and row helpers: ptywright.text, shared with the other built-in
-- plugins.
local text = ptywright.text
local starts = text.starts
local has = text.contains
local after = text.after
local trim = text.trim
local blank = text.is_blank
local split_lines = text.split_lines
local find_line = text.find_line
local nonblank = text.nonblank
local last_nonblank = text.last_nonblank
local block = text.block
local segments = text.segments
local first_line = text.first_line

-- Glyphs, as UTF-8 bytes.
local RULE = "\226\148\128" -- ─ U+2500: the rule above the composer, box borders
local BAR_LOW = "\226\150\132" -- ▄ U+2584: the composer's top bar (true colour)
local BAR_HIGH = "\226\150\128" -- ▀ U+2580: its bottom bar
local SPARKLE = "\226\156\166" -- ✦ U+2726: the model's text
local INFO = "\226\132\185" -- ℹ U+2139: a notice
local WARN = "\226\154\160" -- ⚠ U+26A0: a warning
local CROSS = "\226\156\149" -- ✕ U+2715: an error
local DOT = "\226\151\143" -- ● U+25CF: the highlighted option
local BOX_TOP = "\226\149\173" -- ╭
local BOX_BOTTOM = "\226\149\176" -- ╰
local VBAR = "\226\148\130" -- │

local PLACEHOLDER = "  Type your message or @path/to/file"

-- The states classify reports, in describe() order.
local STATES = {
  { name = "starting", description = "The CLI is not taking keys yet: a blank screen, output without the composer, or a screen that looks ready (metadata.pending_state) while the CLI has not turned bracketed paste on, which it does where it starts reading keys." },
  { name = "waiting_for_trust", description = "The folder-trust dialog (\"Do you trust the files in this folder?\"): metadata.options, metadata.selected, metadata.trust.folder." },
  { name = "restarting", description = "\"Gemini CLI is restarting to apply the trust changes...\" after the trust answer: the CLI exits and starts again; keys sent now are lost, so intents that type wait for the new composer." },
  { name = "waiting_for_permission", description = "A tool's confirmation dialog (\"? Shell printf ...\" in a box at the bottom, \"Allow execution of ...?\"): metadata.permission {tool, command, question, options} and metadata.dialog (ptywright.Dialog)." },
  { name = "waiting_for_user_input", description = "Another dialog at the bottom that asks: the loop-detection question (menu loop_detection), the /model dialog (menu model), or a box with options the plugin does not know by name (menu unknown)." },
  { name = "local_ui_screen", description = "A local panel above the composer that the next key dismisses: the shortcuts help (?)." },
  { name = "garbled", description = "Debug output drawn over the live area: lines the CLI prints while it starts, before its console is the UI's ([DEBUG] [IDEConnectionUtils] ..., [SessionSummary] ..., a node error dump), seen after the trust restart. The CLI does not redraw them away by itself; not ready, and send_prompt first redraws the screen (Ctrl+L) before it types." },
  { name = "unrecognized", description = "A composer screen with a part no rule recognises (a status, mode or footer row, or a row between the history and the composer): not ready, not submit-ready; anomaly unrecognized_screen names the row. With a busy sign in it the state is thinking instead." },
  { name = "ready", description = "The composer takes a prompt: empty, holding a draft (metadata.composer), showing the slash-command list (ui_context slash_command); also after a cancelled turn." },
  { name = "thinking", description = "A turn runs: the spinner row (\"... (esc to cancel, Ns)\"), the terminal title \"Working…\", or the prompt echoed with nothing after it yet. API retries run silently under the spinner." },
  { name = "cancelling", description = "A turn still runs after the cancel intent (last_intent cancelling)." },
  { name = "completed_turn", description = "The last prompt has an answer after it and the CLI is idle; metadata.turn.text is the model's last answer." },
  { name = "error", description = "The last turn ended with an error (\"✕ [API Error: ...]\"): metadata.error {kind, message, status}. The composer takes a prompt again." },
  { name = "exited", description = "The CLI quit: the session summary (\"Agent powering down. Goodbye!\", \"To resume this session: gemini --resume\")." },
}

-- What the instance remembers between calls: the version the banner
-- showed (it scrolls away), the parser override, and the last
-- classification, which the intents consult.
local memo = { version = nil, override = nil, state = nil, options = nil, selected = nil, menu = nil,
  composer_empty = nil, composer_text = nil, restart_pending = false }

-- Reading rows.

local function is_rule(line)
  return #line >= 30 and (line:gsub(RULE, "")) == ""
end

local function is_bar(line)
  local rest = line:gsub(BAR_LOW, ""):gsub(BAR_HIGH, "")
  return #line >= 30 and rest == ""
end

-- prompt_rest returns the text after " > " (the composer and echoed
-- prompts), or nil.
local function prompt_rest(line)
  if line == " >" then
    return ""
  end
  return after(line, " > ")
end

-- Debug output over the screen: lines the CLI prints while it starts,
-- before its console is the UI's (after the trust restart: "[DEBUG]
-- [IDEConnectionUtils] Failed to read IDE connection directory ...", a
-- node error dump, "[SessionSummary] No previous session needs summary
-- generation"). No rule of the CLI's own UI draws these shapes.
local STRAY = { "^%[DEBUG%] ", "^%[%u%a+%] ", "^at [%w%.<>_]+ %(.*:%d+:%d+%)$", "^at async ", "^at .*:%d+:%d+$",
  "^errno: %-?%d+,?$", "^code: '%u+',?$", "^syscall: '%a+',?$", "^path: '.*',?$", "^chunk%-%w+%.js:%d+" }

local function stray(line)
  local t = trim(line)
  local rest = prompt_rest(line)
  if rest then
    t = trim(rest)
  end
  for _, p in ipairs(STRAY) do
    if t:match(p) then
      return true
    end
  end
  return false
end

-- A Braille spinner frame (U+2800..U+28FF).
local function braille(s)
  return s:match("^\226[\160-\163][\128-\191]") ~= nil
end

-- Busy signs in a row the plugin does not know: it then reads as work in
-- progress rather than as an unknown idle screen.
local BUSY_WORDS = { "Waiting", "Starting", "Loading", "Connecting", "Retrying", "Initializing", "Thinking" }
local ESC_HINTS = { "esc to cancel", "esc to interrupt", "esc cancel" }

local function busy_sign(line)
  local t = trim(line)
  if has(t:lower(), ESC_HINTS) or braille(t) then
    return true
  end
  return has(t, BUSY_WORDS)
end

-- The rows under the rule.

-- Approval modes, as the row under the rule names them (the CLI's
-- ApprovalModeIndicator and ShellModeIndicator).
local MODES = {
  ["Shift+Tab to accept edits"] = "default",
  ["auto-accept edits Shift+Tab to manual"] = "auto_edit",
  ["auto-accept edits Shift+Tab to plan"] = "auto_edit",
  ["plan Shift+Tab to manual"] = "plan",
  ["YOLO Ctrl+Y"] = "yolo",
  ["shell mode enabled (esc to disable)"] = "shell",
}

-- The footer's labels (its first row); the second row holds their values.
local FOOTER_LABELS = { ["workspace (/directory)"] = "directory", ["sandbox"] = "sandbox", ["/model"] = "model" }

-- find_live locates the live area: the last full-width rule with the
-- composer (" > ") within the few rows under it. It returns nil when the
-- bottom of the screen is something else (the restart notice); classify
-- does not call it when a box ends the screen (a dialog).
local function find_live(lines, last)
  for r = last, 1, -1 do
    if is_rule(lines[r]) then
      for k = r + 1, math.min(r + 4, last) do
        if prompt_rest(lines[k]) then
          return r, k
        end
      end
      return nil
    end
  end
  return nil
end

-- parse_live reads the rows from the status row above the rule down to the
-- end of the screen. It returns the live area and the rows it does not
-- know ({row, text}).
local function parse_live(lines, last, rule, c)
  local live = { rule = rule, row = c, unknown = {} }
  local function unknown(i)
    live.unknown[#live.unknown + 1] = { row = i, text = trim(lines[i]) }
  end
  -- The mode row and the bar (true colour) between the rule and the composer.
  for i = rule + 1, c - 1 do
    local t = trim(lines[i])
    if MODES[t] then
      live.mode = MODES[t]
    elseif not (t == "" or is_bar(lines[i])) then
      unknown(i)
    end
  end
  -- The composer: " > text" and its continuation rows ("   text").
  local rest = prompt_rest(lines[c])
  local parts = { rest }
  local j = c + 1
  while j <= last and starts(lines[j], "   ") and not blank(lines[j]) do
    parts[#parts + 1] = lines[j]:sub(4)
    j = j + 1
  end
  live.composer_last = j - 1
  live.empty = #parts == 1 and rest == PLACEHOLDER
  live.text = live.empty and "" or trim(table.concat(parts, "\n"))
  -- Below it: a blank or bar row, the slash-command list, the footer.
  local labels = nil
  local status = {}
  for i = j, last do
    local line = lines[i]
    local t = trim(line)
    if t == "" or is_bar(line) then
      -- spacing
    elseif labels and i == labels + 1 then
      -- The footer's values, one under each label; the directory is a
      -- path.
      local vals = segments(t)
      local ok = #vals == #live.footer_keys
      for k, key in ipairs(live.footer_keys) do
        status[key] = vals[k]
        if key == "directory" and not (vals[k] and vals[k]:match("^[~/]")) then
          ok = false
        end
      end
      if not ok then
        unknown(i)
      end
    else
      local segs = segments(t)
      local footer = #segs > 0
      for _, s in ipairs(segs) do
        footer = footer and FOOTER_LABELS[s] ~= nil
      end
      if footer and not labels then
        labels = i
        live.footer_keys = {}
        for _, s in ipairs(segs) do
          live.footer_keys[#live.footer_keys + 1] = FOOTER_LABELS[s]
        end
      elseif starts(live.text, "/") and not labels then
        -- The slash-command list: "  name   description", "▼", "(1/42)".
        local name = t:match("^([%w%-_:]+)%s%s")
        if name then
          live.suggestions = live.suggestions or {}
          live.suggestions[#live.suggestions + 1] = name
        elseif not (t == "\226\150\188" or t == "\226\150\178" or t:match("^%(%d+/%d+%)$") or t:match("^[%w%-_:]+$")) then
          unknown(i)
        end
      else
        unknown(i)
      end
    end
  end
  live.status = status
  -- The status row above the rule: the spinner, "? for shortcuts"; the
  -- exit prompt of a first Ctrl+C sits on its own row above it.
  local s = rule - 1
  local armed = s - 1
  if armed >= 1 and (trim(lines[armed]) == "Press Ctrl+C again to exit." or trim(lines[armed]) == "Press Ctrl+D again to exit.") then
    live.exit_armed = trim(lines[armed])
    live.armed_row = armed
  end
  if s >= 1 and not blank(lines[s]) then
    live.status_row = s
    for _, seg in ipairs(segments(trim(lines[s]), 3)) do
      if seg == "? for shortcuts" then
        live.shortcuts_hint = true
      elseif braille(seg) and seg:match("%(esc to cancel, [%w ]+%)$") then
        live.spinner = seg
        live.activity = trim(seg:sub(4):match("^(.-)%s*%(esc to cancel") or "")
        live.elapsed = seg:match("%(esc to cancel, ([%w ]+)%)$")
      elseif seg == "Press Ctrl+C again to exit." or seg == "Press Ctrl+D again to exit." then
        live.exit_armed = seg
      else
        unknown(s)
      end
    end
  end
  return live
end

-- The history above the live area.

-- The head of the prompt queue above the status row.
local QUEUE_HEAD = "Queued (press \226\134\145 to edit):"
-- The notice of a prompt sent before the CLI is ready.
local QUEUED = { "Prompts will be queued", "prompts will be queued" }
-- Notices that end a turn the user or the CLI stopped.
local INTERRUPTS = { "Request cancelled", "request has been halted" }

-- Item heads: rows that start an item of the history.
-- is_prompt: an echoed prompt " > text" (not start-up output that once
-- overwrote a composer row). Byte tests first: this runs on every row.
local function is_prompt(line)
  if line:byte(1) ~= 32 or line:byte(2) ~= 62 or not (line:byte(3) == 32 or #line == 2) then
    return false
  end
  return not stray(line)
end

local HEAD_KINDS = { [SPARKLE] = "answer", [INFO] = "info", [WARN] = "warning", [CROSS] = "error" }

local function item_kind(line)
  local head = line:sub(1, 3)
  local k = HEAD_KINDS[head]
  if k then
    return line:byte(4) == 32 and k or nil
  end
  if head == BOX_TOP then
    return "box"
  end
  if line:byte(1) == 32 then
    if is_prompt(line) then
      return "prompt"
    end
    if line:sub(2, 4) == BOX_TOP then
      return "box"
    end
  end
  return nil
end

-- turn_analysis reads the history rows 1..last: the last prompt echoed
-- and what came after it. state: "running" (nothing after the prompt),
-- "completed" (an answer after it), "interrupted" ("Request cancelled"),
-- "error" (an error item last), "tool" (a tool box last), "command" (a
-- slash command), "none" (no prompt on screen).
local function turn_analysis(lines, last)
  local prompt_row = nil
  for i = last, 1, -1 do
    if is_prompt(lines[i]) then
      prompt_row = i
      break
    end
  end
  local turn = { state = "none" }
  if prompt_row then
    local ptext = { prompt_rest(lines[prompt_row]) }
    local k = prompt_row + 1
    while k <= last and starts(lines[k], "   ") and not blank(lines[k]) do
      ptext[#ptext + 1] = lines[k]:sub(4)
      k = k + 1
    end
    turn.prompt = trim(table.concat(ptext, "\n"))
    turn.state = starts(turn.prompt, "/") and "command" or "running"
  end
  local from = prompt_row and prompt_row + 1 or 1
  local last_kind, answer_row, error_row, info_row = nil, nil, nil, nil
  for i = from, last do
    local kind = item_kind(lines[i])
    if kind and kind ~= "prompt" then
      last_kind = kind
      if kind == "answer" then
        answer_row = i
      elseif kind == "error" then
        error_row = i
      elseif kind == "info" then
        info_row = i
      end
    end
  end
  if not prompt_row and not last_kind then
    -- No item head on screen: the history's rows continue an item whose
    -- head scrolled away. Rows indented like an answer's ("  text") are
    -- the end of one, and the turn they answer has completed.
    local k = last_nonblank(lines, 1, last)
    local first = nonblank(lines, 1, last)
    if k and starts(lines[k], "  ") and not has(lines[k], VBAR) then
      turn.state, answer_row, last_kind = "completed", first, "answer"
      turn.scrolled = true
    end
  elseif not prompt_row and answer_row and last_kind == "answer" then
    turn.state = "completed"
    turn.scrolled = true
  end
  if last_kind == "info" and has((table.concat(lines, " ", info_row, last):gsub("%s+", " ")), QUEUED) then
    -- A prompt sent while the CLI was still initializing: it is queued and
    -- goes out by itself once the CLI is ready.
    turn.state = "queued"
  end
  turn.last_kind = last_kind
  turn.answer_row = answer_row
  if prompt_row and turn.state ~= "command" then
    if error_row and not (answer_row and answer_row > error_row) then
      -- An error ends the turn; a notice may follow it ("ℹ This request
      -- failed. Press F12 for diagnostics...").
      turn.state = "error"
      local _, e = block(lines, error_row, error_row, last)
      local msg = { after(lines[error_row], CROSS .. " ") }
      for j = error_row + 1, e do
        msg[#msg + 1] = trim(lines[j])
      end
      turn.error = trim(table.concat(msg, " "))
    elseif last_kind == "info" and has((table.concat(lines, " ", info_row, last):gsub("%s+", " ")), INTERRUPTS) then
      turn.state = "interrupted"
    elseif answer_row then
      turn.state = "completed"
    elseif last_kind == "box" then
      turn.state = "tool"
    end
  end
  return turn
end

-- answer_text is the model's last answer: the "✦ " block at row from (and
-- its indented continuation) up to the next item or the end.
local function answer_text(lines, from, last)
  local out = { after(lines[from], SPARKLE .. " ") or trim(lines[from]) }
  for i = from + 1, last do
    local line = lines[i]
    if item_kind(line) then
      break
    end
    out[#out + 1] = starts(line, "  ") and line:sub(3) or line
  end
  return trim(table.concat(out, "\n"))
end

-- error_info turns an error item into {kind, message, status?}.
local function error_info(message)
  local e = { message = message, kind = "unknown" }
  local status = message:match("[Ss]tatus:? (%d%d%d)") or message:match("got status: (%d%d%d)") or message:match("\"code\":%s*(%d%d%d)")
    or message:match("%[API Error: (%d%d%d)")
  if status then
    e.status = tonumber(status)
  end
  local lower = message:lower()
  if e.status == 429 or has(lower, { "quota", "rate limit", "resource_exhausted", "resource has been exhausted" }) then
    e.kind = "rate_limited"
  elseif e.status == 401 or e.status == 403 or has(lower, { "api key not valid", "unauthenticated", "permission_denied" }) then
    e.kind = "auth"
  elseif has(lower, "overloaded") or e.status == 503 or has(lower, "unavailable") then
    e.kind = "overloaded"
  elseif (e.status and e.status >= 500) or has(lower, "internal") then
    e.kind = "server"
  elseif has(lower, { "fetch failed", "econnrefused", "connection", "network" }) then
    e.kind = "connection"
  elseif has(lower, { "stream", "terminated", "premature close", "aborted" }) then
    e.kind = "stream_disconnected"
  end
  return e
end

-- The assessment.

local function version_info(screen_version)
  local pm, anomalies = {}, {}
  if screen_version then
    if memo.version and memo.version ~= screen_version then
      pm.baseline_invalidated = true
      anomalies[#anomalies + 1] = { code = "baseline_invalidated",
        message = "the banner changed from Gemini CLI " .. memo.version .. " to " .. screen_version .. " in this session" }
    end
    memo.version = screen_version
    pm.selection_source = "detected"
  elseif memo.version then
    pm.selection_source = "remembered"
  end
  local v = screen_version or memo.version
  pm.detected_version = v
  if memo.override then
    pm.requested_version = memo.override
    pm.selection_source = "override"
    anomalies[#anomalies + 1] = { code = "preset_override_used",
      message = "preset selection pinned to Gemini CLI " .. memo.override .. " by parser_override (banner: " .. (v or "none seen") .. ")" }
    v = memo.override
  end
  if not v then
    pm.selection_source = "version_floor"
    anomalies[#anomalies + 1] = { code = "unknown_version_floor_used",
      message = "no Gemini CLI version banner seen; using the " .. VERSION_FLOOR .. " preset" }
  elseif not KNOWN_VERSIONS[v] then
    pm.selection_source = "version_floor"
    anomalies[#anomalies + 1] = { code = "unknown_version_floor_used",
      message = "Gemini CLI " .. v .. " is not a version this preset knows; using the " .. VERSION_FLOOR .. " preset" }
  end
  return pm, anomalies
end

-- INPUT_SETTLE_MS is how long a state's screen must have been still before
-- the CLI takes keys (the host holds an intent's keys until then); see
-- CAPTURES.md, "Input readiness". The CLI draws a dialog (and, at start-up,
-- its composer) before the code that reads keys for it is listening; on a
-- loaded 2-core machine a key sent 300 ms after the trust dialog was drawn
-- was lost in 7 of 10 starts (none when the CLI ran alone, 10 of 10 taken
-- from 0 ms on), so dialogs settle 1 s.
local INPUT_SETTLE_MS = {
  waiting_for_trust = 1000,
  waiting_for_permission = 1000,
  waiting_for_user_input = 1000,
  garbled = 1000,
}
-- STARTUP_SETTLE_MS is the same for the composer of a CLI that has taken
-- no prompt yet (just started, or restarted after the trust answer): it
-- is still loading, and reads the paste and the Enters in one batch.
local STARTUP_SETTLE_MS = 1000
-- NOT_READING_SETTLE_MS holds keys on a screen that does not read them
-- (the trust restart, a CLI that has not turned bracketed paste on):
-- the host's hold looks again at each change and sends when the screen
-- is one that reads them and has settled; this is longer than its limit.
local NOT_READING_SETTLE_MS = 5000

local AWAITING = "awaiting_operator"

-- result assembles classify's table; a = {availability, business_state,
-- input_mode, ui_context, excerpt?, anomalies?, variant?, unmatched?}.
local function result(view, state, confidence, evidence, a, metadata)
  local pm, anomalies = version_info(view.version)
  pm.provider_id = PROVIDER_ID
  pm.parser_preset_id = PRESET_ID
  pm.parser_preset_version = PRESET_VERSION
  pm.output_format = OUTPUT_FORMAT
  pm.output_variant = view.live and "composer" or (view.last == 0 and "blank" or "no_composer")
  pm.output_format_match = not a.unmatched
  for _, an in ipairs(a.anomalies or {}) do
    anomalies[#anomalies + 1] = an
  end
  local assessment = {
    availability = a.availability or "supported",
    business_state = a.business_state,
    input_mode = a.input_mode,
    ui_context = a.ui_context,
    operator_blocked_excerpt = a.excerpt,
    parser_metadata = pm,
  }
  if #anomalies > 0 then
    assessment.anomalies = anomalies
  end
  metadata = metadata or {}
  memo.state = state
  memo.options = metadata.options
  memo.selected = metadata.selected
  memo.dialog = metadata.dialog
  memo.menu = metadata.menu
  memo.composer_empty = metadata.composer and metadata.composer.empty
  memo.composer_text = metadata.composer and metadata.composer.text
  local settle = INPUT_SETTLE_MS[state]
  if state == "ready" and metadata.turn and metadata.turn.state == "none" then
    settle = STARTUP_SETTLE_MS
  elseif state == "restarting" then
    settle = NOT_READING_SETTLE_MS
  end
  return { state = state, confidence = confidence, evidence = evidence, metadata = metadata, assessment = assessment,
    input_settle_ms = settle }
end

local function excerpt(lines, from, to)
  local out = {}
  for i = from, to do
    local l = lines[i]
    -- Box borders and sides are chrome.
    l = l:gsub("^%s*" .. VBAR .. " ?", ""):gsub("%s*" .. VBAR .. "%s*$", "")
    if not (l:find("^%s*" .. BOX_TOP) or l:find("^%s*" .. BOX_BOTTOM)) then
      out[#out + 1] = l
    end
  end
  local s = table.concat(out, "\n"):gsub("\n%s*\n[%s\n]*", "\n\n")
  return trim(s)
end

-- The dialogs at the live edge: a box whose bottom border is the last
-- row of the screen (nothing of the live area below it).

-- edge_box finds that box: {top, bottom, rows} with rows the text inside
-- its sides, or nil.
local function edge_box(lines, last)
  if last == 0 or not lines[last]:find("^%s?" .. BOX_BOTTOM) then
    return nil
  end
  local indent = lines[last]:find(BOX_BOTTOM, 1, true) - 1
  for i = last - 1, 1, -1 do
    local line = lines[i]
    if line:sub(indent + 1, indent + #BOX_TOP) == BOX_TOP then
      local rows = {}
      for k = i + 1, last - 1 do
        local inner = lines[k]:sub(indent + 1)
        inner = after(inner, VBAR) or inner
        inner = inner:gsub("%s*" .. VBAR .. "%s*$", "")
        rows[#rows + 1] = inner
      end
      return { top = i, bottom = last, rows = rows }
    end
    if line:sub(indent + 1, indent + #VBAR) ~= VBAR then
      return nil
    end
  end
  return nil
end

-- parse_options reads "● 1. Allow once" / "  2. Allow for this session"
-- rows (inside a box, sides removed), with indented descriptions under
-- them.
local function parse_options(rows)
  local opts, selected = {}, nil
  for _, row in ipairs(rows) do
    local mark = false
    local rest = after(row, " " .. DOT .. " ")
    if rest then
      mark = true
    else
      rest = after(row, "   ")
    end
    local n, label = nil, nil
    if rest then
      n, label = rest:match("^(%d+)%.%s+(.-)%s*$")
    end
    if n then
      local opt = { index = tonumber(n), label = label, selected = mark }
      local l, key = label:match("^(.-)%s+%((%a+)%)$")
      if l then
        opt.label, opt.key = l, key
      end
      opts[#opts + 1] = opt
      if mark then
        selected = opt.index
      end
    elseif #opts > 0 and row:match("^%s%s%s%s%s+%S") and not opts[#opts].description then
      opts[#opts].description = trim(row)
    end
  end
  return opts, selected
end

local function detect_trust(view)
  local box = view.box
  if not box then
    return nil
  end
  local q = find_line(box.rows, "Do you trust the files in this folder?")
  if not q then
    return nil
  end
  local opts, selected = parse_options(box.rows)
  if #opts == 0 then
    return nil
  end
  local metadata = { options = opts, selected = selected, trust = {} }
  for _, o in ipairs(opts) do
    local folder = o.label:match("^Trust folder %((.*)%)$")
    if folder then
      metadata.trust.folder = folder
    end
  end
  return result(view, "waiting_for_trust", 0.95, "trust dialog: Do you trust the files in this folder?",
    { business_state = AWAITING, input_mode = "modal", ui_context = "trust_prompt", excerpt = excerpt(view.lines, box.top, box.bottom) }, metadata)
end

-- The tool kinds of metadata.dialog.tool, by the CLI's display name.
local DIALOG_TOOLS = { Shell = "shell", Edit = "edit", WriteFile = "write", ReadFile = "read", ReadManyFiles = "read",
  ReadFolder = "read", WebFetch = "web_fetch", GoogleSearch = "web_search" }

-- dialog_of is the shape every built-in plugin reports for a permission
-- dialog (metadata.dialog, see ptywright.Dialog). Its key hashes the box's
-- rows from the title down, without the option rows (a moved highlight
-- keeps it); classify adds the instance to make the id. The path of an
-- edit or a write is read from the title the CLI gives them ("Edit
-- <path>: <old> => <new>", "WriteFile Writing to <path>"); an MCP tool's
-- names from the question.
local function dialog_of(permission, rows, head, opts, selected)
  local keyed = {}
  for k = head, #rows do
    if not (rows[k]:gsub("^%s*" .. DOT, "")):match("^%s*%d+%.%s") then
      keyed[#keyed + 1] = trim(rows[k])
    end
  end
  local d = {
    kind = "permission",
    key = "perm-" .. text.hash(table.concat(keyed, "\n")),
    tool = DIALOG_TOOLS[permission.tool] or "other",
    tool_name = permission.tool,
    options = {},
    selected_index = selected,
  }
  local summary = permission.summary or ""
  if d.tool == "shell" then
    d.command = permission.command or (summary ~= "" and summary or nil)
  elseif d.tool == "edit" then
    d.path = summary:match("^(.-):%s") or nil
  elseif d.tool == "write" then
    d.path = summary:match("^Writing to (.+)$")
  end
  local server_tool, server = (permission.question or ""):match('^Allow execution of MCP tool "(.-)" from server "(.-)"%?$')
  if server_tool then
    d.tool, d.mcp_tool, d.mcp_server = "mcp", server_tool, server
  end
  for i, o in ipairs(opts) do
    d.options[i] = { index = o.index, label = o.label, key = o.key }
  end
  return d
end

-- The tool confirmation: "? Shell  printf ..." on the box's first row, the
-- command in an inner box, "Allow execution of [Shell]?", options.
local function detect_permission(view)
  local box = view.box
  if not box then
    return nil
  end
  local head = nil
  for k, row in ipairs(box.rows) do
    local h = after(row, " ? ")
    if h then
      head = k
      break
    end
    if not blank(row) then
      break
    end
  end
  if not head then
    return nil
  end
  local opts, selected = parse_options(box.rows)
  if #opts == 0 then
    return nil
  end
  local title = trim(after(box.rows[head], " ? "))
  local tool, summary = title:match("^(%S+)%s+(.*)$")
  local permission = { tool = tool or title, summary = summary and trim(summary) or nil, options = opts }
  for k = head + 1, #box.rows do
    local row = trim(box.rows[k])
    local q = row:match("^(Allow execution of .-%?)$") or row:match("^(Apply this change%?)$") or row:match("^(Allow .-%?)$")
    if q and not permission.question then
      permission.question = q
    end
    -- The command, in the inner box: "│ printf ... │".
    local inner = after(row, VBAR .. " ")
    if inner and not permission.command then
      permission.command = trim((inner:gsub("%s*" .. VBAR .. "$", "")))
    end
  end
  if not permission.question then
    return nil
  end
  if permission.tool == "Shell" then
    permission.kind = "shell"
  elseif has(permission.tool or "", { "Write", "Edit", "WriteFile" }) then
    permission.kind = "edit"
  else
    permission.kind = "other"
  end
  local metadata = { permission = permission, options = opts, selected = selected,
    dialog = dialog_of(permission, box.rows, head, opts, selected) }
  return result(view, "waiting_for_permission", 0.95, "confirmation dialog: " .. title:sub(1, 80),
    { business_state = AWAITING, input_mode = "modal", ui_context = "approval_prompt", excerpt = excerpt(view.lines, view.box.top, view.box.bottom) }, metadata)
end

local MENUS = {
  { probe = "A potential loop was detected", menu = "loop_detection" },
  { probe = "Select Model", menu = "model" },
}

-- Another box at the live edge with options: a question the plugin knows
-- by name (MENUS) or not (menu unknown).
local function detect_menu(view)
  local box = view.box
  if not box then
    return nil
  end
  local opts, selected = parse_options(box.rows)
  if #opts == 0 or not selected then
    return nil
  end
  local menu, heading = "unknown", nil
  for _, m in ipairs(MENUS) do
    local k = find_line(box.rows, m.probe)
    if k then
      menu, heading = m.menu, trim(box.rows[k])
      break
    end
  end
  if not heading then
    local k = nonblank(box.rows)
    heading = k and trim(box.rows[k]) or ""
  end
  heading = heading:gsub("^%?%s+", "")
  return result(view, "waiting_for_user_input", menu == "unknown" and 0.6 or 0.9, "dialog: " .. heading:sub(1, 80),
    { business_state = AWAITING, input_mode = "modal", ui_context = "selection_menu", excerpt = excerpt(view.lines, box.top, box.bottom) },
    { options = opts, selected = selected, menu = menu, heading = heading })
end

local RESTART_NOTICE = "Gemini CLI is restarting to apply the trust changes..."
local RESTART_GIVE_UP_MS = 5000

-- The restart notice ends the screen, or only the new instance's own
-- start-up output (stray lines, see STRAY) follows it: the new UI is not
-- drawn yet, and the terminal is not even in raw mode (keys sent now are
-- echoed and lost).
local function detect_restart(view)
  local lines = view.lines
  if view.last == 0 or view.live then
    return nil
  end
  local notice = nil
  for i = view.last, math.max(1, view.last - 8), -1 do
    if trim(lines[i]) == RESTART_NOTICE then
      notice = i
      break
    end
    if not (blank(lines[i]) or stray(lines[i])) then
      return nil
    end
  end
  if not notice then
    return nil
  end
  return result(view, "restarting", 0.95, "restart notice: Gemini CLI is restarting to apply the trust changes...",
    { business_state = "working", input_mode = "closed", ui_context = "restarting" }, {})
end

local function detect_exited(view)
  local lines = view.lines
  local bye = find_line(lines, "Agent powering down. Goodbye!")
  local resume = find_line(lines, "To resume this session: gemini --resume")
  if not (bye or resume) or view.live then
    return nil
  end
  if view.box and not (resume and resume >= view.box.top) then
    return nil
  end
  local metadata = {}
  if resume then
    local id = (lines[resume + 1] or ""):match("(%x+%-%x+%-%x+%-%x+%-%x+)")
    if id then
      metadata.resume_session = id
      metadata.resume_command = "gemini --resume " .. id
    end
  end
  return result(view, "exited", 0.9, "session ended: " .. (bye and "Agent powering down. Goodbye!" or "resume hint"),
    { availability = "disconnected", business_state = "unknown", input_mode = "closed", ui_context = "exited" }, metadata)
end

-- The shortcuts panel: its own rule and " Shortcuts See /help for more"
-- above the live area.
local function shortcuts_panel(lines, top)
  for i = top, math.max(1, top - 14), -1 do
    if is_rule(lines[i]) and trim(lines[i + 1] or "") == "Shortcuts See /help for more" then
      return i
    end
  end
  return nil
end

-- named gives r the id of the composer rule that made it, when the host
-- asks for an explanation.
local function named(r, ctx, rule)
  if ctx.explain then
    r.rule = rule
  end
  return r
end

local function detect_composer(view, ctx)
  local live = view.live
  if not live then
    return nil
  end
  local lines = view.lines
  local metadata = { composer = { text = live.text, empty = live.empty }, status = live.status, mode = live.mode }
  local ui = "normal_prompt"
  if not live.empty and starts(live.text, "/") and (live.suggestions or live.text:match("^/[%w%-_]*$")) then
    ui = "slash_command"
    metadata.slash = { query = live.text:sub(2), suggestions = live.suggestions or {} }
  end
  local anomalies = {}
  local top = (live.armed_row or live.status_row or live.rule) - 1
  -- Prompts sent while the CLI initializes or works wait in a queue drawn
  -- above the status row: "  Queued (press ↑ to edit):", then each
  -- prompt indented four.
  local queued = nil
  do
    local k = top
    while k >= 1 and blank(lines[k]) do
      k = k - 1
    end
    local items = {}
    while k >= 1 and starts(lines[k], "    ") and not blank(lines[k]) do
      table.insert(items, 1, trim(lines[k]))
      k = k - 1
    end
    if k >= 1 and #items > 0 and starts(trim(lines[k]), QUEUE_HEAD) then
      queued = items
      top = k - 1
    end
  end
  local panel = shortcuts_panel(lines, top)
  if panel then
    return named(result(view, "local_ui_screen", 0.9, "shortcuts panel above the composer",
      { business_state = "idle", input_mode = "modal", ui_context = "shortcuts_overlay" }, { overlay = "shortcuts", composer = metadata.composer }), ctx, "gemini.shortcuts")
  end
  local turn = turn_analysis(lines, top)
  if turn.state == "completed" then
    turn.text = answer_text(lines, turn.answer_row, top)
  end
  local error_text = turn.error
  turn.answer_row, turn.last_kind, turn.error = nil, nil, nil
  metadata.turn = turn
  if live.spinner then
    metadata.activity = live.activity
    metadata.elapsed = live.elapsed
  end
  if live.exit_armed then
    metadata.exit_armed = live.exit_armed
  end
  if queued then
    metadata.queued = queued
  end

  local unknown = live.unknown
  if #unknown > 0 then
    local busy = false
    for _, u in ipairs(unknown) do
      anomalies[#anomalies + 1] = { code = "unrecognized_screen", message = "row " .. u.row .. ": " .. u.text }
      busy = busy or busy_sign(u.text)
    end
    metadata.unrecognized = unknown
    local evidence = "unrecognised row " .. unknown[1].row .. ": " .. unknown[1].text:sub(1, 60)
    if busy or live.spinner then
      return named(result(view, "thinking", 0.5, evidence .. " (busy sign)",
        { business_state = "working", input_mode = "freeform", ui_context = ui, anomalies = anomalies }, metadata), ctx, "gemini.unrecognized")
    end
    return named(result(view, "unrecognized", 0.4, evidence,
      { business_state = "unknown", input_mode = "freeform", ui_context = ui, anomalies = anomalies }, metadata), ctx, "gemini.unrecognized")
  end

  local working_title = view.title ~= nil and has(view.title, "Working")
  local signal, rule = nil, nil
  if live.spinner then
    signal, rule = "spinner: " .. live.spinner, "gemini.spinner"
  elseif working_title then
    signal, rule = "title: " .. trim(view.title), "gemini.title_working"
  elseif queued then
    signal, rule = "queued prompt: " .. queued[1]:sub(1, 60), "gemini.queued"
  elseif turn.state == "queued" then
    signal, rule = "prompt queued: the CLI is still initializing", "gemini.prompt_queued"
  elseif turn.state == "running" or turn.state == "tool" then
    -- The prompt is echoed and nothing (or only a tool's box) follows it
    -- yet: the turn has started and not ended.
    signal, rule = "turn running: nothing after the prompt yet", "gemini.turn_running"
  end
  if signal then
    local state = ctx.last_intent == "cancelling" and "cancelling" or "thinking"
    return named(result(view, state, live.spinner and 0.9 or 0.7, signal,
      { business_state = "working", input_mode = "freeform", ui_context = ui, anomalies = anomalies }, metadata), ctx, rule)
  end

  local idle = { business_state = "idle", input_mode = "freeform", ui_context = ui, anomalies = anomalies }
  if not live.empty then
    if ui == "slash_command" then
      return named(result(view, "ready", 0.9, "slash command list: " .. live.text, idle, metadata), ctx, "gemini.slash_command")
    end
    return named(result(view, "ready", 0.9, "composer has text", idle, metadata), ctx, "gemini.composer_draft")
  end
  if turn.state == "error" then
    metadata.error = error_info(error_text)
    anomalies[#anomalies + 1] = { code = "error_banner", message = error_text }
    return named(result(view, "error", 0.9, "error: " .. error_text:sub(1, 80), idle, metadata), ctx, "gemini.error")
  end
  if turn.state == "completed" then
    return named(result(view, "completed_turn", 0.9, "turn completed: an answer after the last prompt", idle, metadata), ctx, "gemini.turn_completed")
  end
  if turn.state == "interrupted" then
    return named(result(view, "ready", 0.9, "composer idle after a cancelled turn", idle, metadata), ctx, "gemini.turn_cancelled")
  end
  return named(result(view, "ready", 0.9, "composer idle: Type your message or @path/to/file", idle, metadata), ctx, "gemini.composer_idle")
end

-- After the trust answer the CLI restarts. Its old instance draws its
-- composer once more, in place of the dialog, before it prints the restart
-- notice and exits; only a composer after the notice was seen (see
-- classify) is the new instance's. Should no notice come (a CLI that does
-- not restart), a composer still for RESTART_GIVE_UP_MS is taken as it is.
local function detect_restart_pending(view, ctx)
  if not (memo.restart_pending and view.live) then
    return nil
  end
  if (tonumber(ctx.stable_ms) or 0) >= RESTART_GIVE_UP_MS then
    memo.restart_pending = false
    return nil
  end
  return result(view, "restarting", 0.8, "trust answered: the CLI restarts (no restart notice yet)",
    { business_state = "working", input_mode = "closed", ui_context = "restarting" }, {})
end

local function detect_garbled(view)
  if not view.live then
    return nil
  end
  local rows = {}
  for i = math.max(1, view.live.rule - 1), view.last do
    if stray(view.lines[i]) then
      rows[#rows + 1] = { row = i, text = trim(view.lines[i]) }
    end
  end
  if #rows == 0 then
    return nil
  end
  local anomalies = {}
  for _, u in ipairs(rows) do
    anomalies[#anomalies + 1] = { code = "unrecognized_screen", message = "row " .. u.row .. " (output of another process): " .. u.text }
  end
  return result(view, "garbled", 0.6, "output of another process over the live area: " .. rows[1].text:sub(1, 60),
    { business_state = "unknown", input_mode = "freeform", ui_context = "unknown", anomalies = anomalies }, { stray = rows })
end

-- The states whose screen takes keys: read as starting while the CLI's
-- key handling is not installed yet (ctx.bracketed_paste false).
local KEYED = { ready = true, completed_turn = true, error = true, unrecognized = true, garbled = true,
  waiting_for_trust = true, waiting_for_permission = true, waiting_for_user_input = true, local_ui_screen = true }

-- Each detector is a rule with a stable id, reported as the result's rule
-- (adapter.explain names it; the fixtures' expected files check it). The
-- dialog rules read a box at the live edge only, which exists only when no
-- composer is at the bottom: a dialog quoted in an answer stays answer.
local DETECTORS = {
  { "gemini.exited", detect_exited },
  { "gemini.restarting", detect_restart },
  { "gemini.trust", detect_trust },
  { "gemini.permission", detect_permission },
  { "gemini.menu", detect_menu },
  { "gemini.restart_pending", detect_restart_pending },
  { "gemini.garbled", detect_garbled },
  { "gemini.composer", detect_composer },
}

-- Dialog instances (ptywright.dialog.instances): the id adds to the key a
-- count that moves on for a dialog with another key, or any dialog after
-- the composer was seen (the previous one was answered).
local dialog_ids = ptywright.dialog.instances()

local function number_dialog(r, composer)
  local d = r.metadata and r.metadata.dialog
  local id = dialog_ids(d and d.key, composer)
  if d then
    d.id, d.key = id, nil
    r.metadata.dialog_id = id
  end
end

function M.classify(ctx)
  local screen = ctx.screen or ""
  local lines = split_lines(screen)
  local view = { screen = screen, lines = lines, title = ctx.title, last = last_nonblank(lines) or 0 }
  if has(screen, "Gemini CLI v") then
    view.version = screen:match("Gemini CLI v(%d+%.%d+%.%d+[%w%.%-]*)")
  end
  local considered = ctx.explain and {} or nil
  if memo.restart_pending and (ctx.bracketed_paste == false or has(screen, RESTART_NOTICE)) then
    -- The old instance printed the restart notice (after the last frame
    -- of its own composer), or turned bracketed paste off on its way out:
    -- the next composer is the new instance's, wherever the notice went
    -- (the new instance may clear the screen).
    memo.restart_pending = false
  end
  -- A box that ends the screen is the live edge (a dialog): the live
  -- area a search upwards would find above it is an old one, left on the
  -- screen by the instance the trust restart replaced.
  view.box = edge_box(lines, view.last)
  if not view.box then
    local rule, c = find_live(lines, view.last)
    if rule then
      view.live = parse_live(lines, view.last, rule, c)
    end
  end
  for _, d in ipairs(DETECTORS) do
    local r = d[2](view, ctx)
    if r then
      if ctx.bracketed_paste == false and KEYED[r.state] then
        -- The CLI turns bracketed paste on where it starts reading keys
        -- (beside raw mode): before that, at start-up and after the trust
        -- restart, a screen that looks ready drops or echoes what is sent.
        local pending, rule = r.state, r.rule
        r = result(view, "starting", 0.8, "the CLI is not reading keys yet (bracketed paste off): " .. r.evidence,
          { business_state = "working", input_mode = "closed", ui_context = "startup" }, { pending_state = pending })
        -- Keys that reach this screen while the host holds them for another
        -- are held on (up to the host's limit) rather than sent.
        r.input_settle_ms = NOT_READING_SETTLE_MS
        if considered then
          considered[#considered + 1] = { rule = rule or d[1], reason = "the screen is " .. pending .. " but keys are not read yet" }
          r.rule = "gemini.keys_not_read"
        end
      end
      number_dialog(r, view.live ~= nil)
      if considered then
        r.rule = r.rule or d[1]
        r.considered = considered
      end
      return r
    end
    if considered then
      considered[#considered + 1] = { rule = d[1], reason = "did not match" }
    end
  end
  local a = { availability = "unknown", business_state = "unknown", input_mode = "closed", ui_context = "unknown", unmatched = true }
  local r
  if view.last == 0 then
    a.unmatched = nil
    r = result(view, "starting", 0.5, "blank screen", a)
    r.rule = considered and "gemini.blank"
  else
    local k = nonblank(lines)
    local first = k and trim(lines[k]) or ""
    a.anomalies = { { code = "unrecognized_screen", message = "the screen matched no Gemini CLI state: " .. first:sub(1, 60) } }
    r = result(view, "starting", 0.2, "nothing recognised: " .. first:sub(1, 60), a)
    r.rule = considered and "gemini.unrecognised"
  end
  r.considered = considered
  return r
end

-- The projection: the history without the CLI's chrome (the logo, the
-- tips, the live area: status row, rule, mode row, composer, footer).

local function is_logo(line)
  local rest = line:gsub("[\226][\150][\128-\159]", ""):gsub("%s", "")
  return rest == "" and not blank(line)
end

function M.project(ctx)
  local lines = split_lines(ctx.screen or "")
  local last = last_nonblank(lines) or 0
  local rule = find_live(lines, last)
  if rule then
    last = rule - 1
    if last >= 1 and (has(lines[last], "? for shortcuts") or has(lines[last], "esc to cancel")) then
      last = last - 1
    end
    local panel = shortcuts_panel(lines, last)
    if panel then
      last = panel - 1
    end
  end
  local out = {}
  local tips = false
  for i = 1, last do
    local line = lines[i]
    local beside = trim((line:gsub("\226\150[\128-\159]", "")))
    local drop = is_logo(line) or (beside ~= line and starts(beside, { "Gemini CLI v", "Authenticated with" }))
    if line == "Tips for getting started:" then
      tips = true
    elseif tips and (blank(line) or not line:match("^%d%. ")) then
      tips = false
    end
    if not drop and not tips then
      out[#out + 1] = line
    end
  end
  local s = table.concat(out, "\n"):gsub("\n[ \t]*\n[%s]*\n", "\n\n")
  return { dialog_text = trim(s), projector_id = PROJECTOR_ID }
end

-- Intents.

-- key_actions sends a named key (action.key_name folds the usual names)
-- or, for anything else, types the string as it is.
local function key_actions(name)
  local k = action.key_name(name)
  if k then
    return { action.key(k) }
  end
  return { action.text(name) }
end

local function need_string(params, field, intent)
  local v = params[field]
  if type(v) ~= "string" or v == "" then
    ptywright.invalid_params(intent .. ": params." .. field .. ": want a non-empty string")
  end
  return v
end

local function prompt_of(params, intent)
  local v = params.prompt
  if v == nil then
    v = params.text
  end
  if type(v) ~= "string" or v == "" then
    ptywright.invalid_params(intent .. ": params.prompt: want a non-empty string")
  end
  return v
end

local function require_state(intent, allowed)
  ptywright.require_state(intent, memo.state, allowed)
end

-- Expectations: the change an intent's keys must cause for the host's
-- receipt to say "confirmed". No plan is marked safe to resend: a second
-- Enter or digit could answer the next dialog.
local LEAVE = { leave = true }
local CHANGED = { changed = true }
local BUSY_ROW = "esc to cancel, "

-- The queued notice as the last item of the history: blank rows, at most
-- the status row, then the rule (an older notice has more history under
-- it).
local QUEUED_LAST = "rompts will be queued\\.\\s*\\n(?:[^\\n]*\\n)?" .. RULE .. "{20,}"

-- expect_submitted: a turn is running (the spinner row), the prompt's
-- first line is echoed in the history above an empty composer, or the CLI
-- queued it ("Queued (press ↑ to edit):" above the status row, or
-- "Initializing... Prompts will be queued."): sent while the CLI was
-- still starting, it goes out by itself, and the state is thinking until
-- it has.
local function expect_submitted(prompt)
  local first = first_line(prompt, 40)
  local branches = { matcher.contains_text(BUSY_ROW), matcher.screen_regex(QUEUED_LAST), matcher.contains_text(QUEUE_HEAD) }
  if first ~= "" then
    branches[#branches + 1] = matcher.all({
      matcher.contains_text(" > " .. first),
      matcher.contains_text(" > " .. PLACEHOLDER),
    })
  end
  return { matcher = matcher.any(branches) }
end

local EXPECT_CANCELLED = { matcher = matcher.none({ matcher.contains_text(BUSY_ROW) }), within_ms = 3000 }

-- The states whose composer takes a prompt. send_prompt's keys wait for
-- one of them (the host's await): never into the trust restart, whose
-- keys are lost, nor into a screen the plugin does not know.
local PROMPT_STATES = { "ready", "completed_turn", "error" }
-- send_prompt's keys also go to a garbled screen, after a Ctrl+L that
-- redraws it (see detect_garbled).
local SEND_STATES = { "ready", "completed_turn", "error", "garbled" }
-- How long send_prompt's keys wait for one: the trust restart starts the
-- CLI again, which took 4-10 s on a loaded 2-core machine.
local AWAIT_MS = 30000

-- send_prompt pastes the prompt and presses Enter. The CLI turns an Enter
-- that comes within 30 ms of typed text, or 40 ms of a paste, into a
-- newline (unless the terminal speaks the kitty keyboard protocol), and
-- the host writes the plan's keys back to back: so the first Enter adds a
-- newline and the retry's Enter, sent after the receipt window, submits
-- (the CLI trims the prompt). It refuses a composer that already holds
-- text: the paste would append to it.
function M.send_prompt(params)
  local prompt = prompt_of(params, "send_prompt")
  local at_prompt = false
  for _, s in ipairs(PROMPT_STATES) do
    at_prompt = at_prompt or memo.state == s
  end
  if at_prompt and memo.composer_empty == false and memo.composer_text then
    ptywright.refuse("send_prompt: the composer still holds text (" .. string.format("%q", memo.composer_text:sub(1, 80)) ..
      "); clear it first (key ctrl_u) or send it as it is with key enter")
  end
  local actions = { action.bracketed_paste(prompt), action.key("enter") }
  if memo.state == "garbled" then
    table.insert(actions, 1, action.key("ctrl_l"))
  end
  return { actions = actions, last_intent = "prompt_submitted",
    expect = expect_submitted(prompt), retry = { action.key("enter") }, await = { states = SEND_STATES, within_ms = AWAIT_MS } }
end

-- moves_then_enter walks the highlight from the selected row to index.
local function moves_then_enter(index)
  if not memo.selected then
    ptywright.refuse("choose_option: no highlighted option on screen to move from")
  end
  return action.select(memo.selected, index)
end

-- answer names, for the host's check at the moment of the key, the
-- permission dialog a plan answers and the option its keys choose (the
-- highlighted one when the keys act on the highlight): nil off a dialog
-- the plugin reports (the trust dialog, the menus).
local function answer(index, highlighted)
  local d = memo.dialog
  if not (d and d.id) then
    return nil
  end
  local label = nil
  for _, o in ipairs(d.options or {}) do
    if o.index == index then
      label = o.label
    end
  end
  return { dialog_id = d.id, index = index, label = label, highlighted = highlighted }
end

-- pick selects option index of the dialog on screen: Enter when the
-- highlight is on it, else its digit, which the CLI's radio lists take as
-- a choice at once.
local function pick(index)
  if memo.selected == index then
    return { actions = { action.key("enter") }, expect = LEAVE, answer = answer(index, index) }
  end
  if index >= 1 and index <= 9 then
    return { actions = { action.text(tostring(index)) }, expect = LEAVE, answer = answer(index) }
  end
  return { actions = moves_then_enter(index), expect = LEAVE, answer = answer(index, memo.selected) }
end

local function option_index(label_prefix)
  for _, o in ipairs(memo.options or {}) do
    if starts(o.label, label_prefix) then
      return o.index
    end
  end
  return nil
end

-- approve: "Allow once" on a tool's confirmation; "Trust folder" on the
-- trust dialog.
function M.approve(_params)
  require_state("approve", { "waiting_for_permission", "waiting_for_trust" })
  if memo.state == "waiting_for_trust" then
    return M.approve_trust({})
  end
  return pick(option_index("Allow once") or 1)
end

-- approve_always: "Allow for this session".
function M.approve_always(_params)
  require_state("approve_always", { "waiting_for_permission" })
  local i = option_index("Allow for this session") or option_index("Allow always")
  if not i then
    ptywright.refuse("approve_always: the dialog offers no \"Allow for this session\"")
  end
  return pick(i)
end

-- deny: Esc. On a tool's confirmation this cancels the tool and ends the
-- turn ("Request cancelled"); on the trust dialog it is deny_trust.
function M.deny(_params)
  require_state("deny", { "waiting_for_permission", "waiting_for_trust", "waiting_for_user_input" })
  if memo.state == "waiting_for_trust" then
    return M.deny_trust({})
  end
  local esc = nil
  for _, o in ipairs(memo.options or {}) do
    if o.key == "esc" then
      esc = o.index
    end
  end
  return { actions = { action.key("escape") }, expect = LEAVE, answer = answer(esc) }
end

-- choose_option picks option {index = n} or {option = "n" | "label"}.
function M.choose_option(params)
  require_state("choose_option", { "waiting_for_permission", "waiting_for_trust", "waiting_for_user_input" })
  local index = tonumber(params.index) or tonumber(params.option)
  local opts = memo.options or {}
  if not index then
    local want = params.option
    if type(params.label) == "string" then
      want = params.label
    end
    if type(want) ~= "string" or want == "" then
      ptywright.invalid_params("choose_option: params.index (number) or params.option (number or label) is required")
    end
    want = want:lower()
    local found = {}
    for _, o in ipairs(opts) do
      if o.label:lower() == want then
        found = { o }
        break
      end
      if has(o.label:lower(), want) then
        found[#found + 1] = o
      end
    end
    if #found ~= 1 then
      ptywright.invalid_params("choose_option: params.option: " .. (#found == 0 and "no option" or "more than one option") .. " matches \"" .. want .. "\"")
    end
    index = found[1].index
  end
  local ok = false
  for _, o in ipairs(opts) do
    ok = ok or o.index == index
  end
  if not ok then
    ptywright.invalid_params("choose_option: no option " .. index .. " on screen")
  end
  if memo.state == "waiting_for_trust" then
    -- Trusting (this folder or its parent) restarts the CLI.
    for _, o in ipairs(opts) do
      if o.index == index and starts(o.label, "Trust ") then
        memo.restart_pending = true
      end
    end
  end
  return pick(index)
end

-- approve_trust: "Trust folder" (option 1). The CLI then restarts itself.
function M.approve_trust(_params)
  require_state("approve_trust", { "waiting_for_trust" })
  local p = pick(option_index("Trust folder") or 1)
  memo.restart_pending = true
  -- No retry: the CLI relaunches 250 ms after the answer from a timer of
  -- the dialog's, and a second key that reaches the dialog meanwhile
  -- closes it, which cancels the restart (the CLI then goes on untrusted
  -- until started again).
  p.expect = { matcher = matcher.contains_text("restarting to apply the trust changes"), within_ms = 5000 }
  return p
end

-- deny_trust: "Don't trust"; the CLI goes on in an untrusted folder.
function M.deny_trust(_params)
  require_state("deny_trust", { "waiting_for_trust" })
  return pick(option_index("Don't trust") or 3)
end

-- cancel interrupts a running turn with Esc. It refuses when no turn runs:
-- Esc on an idle composer clears it (twice: rewinds).
function M.cancel(_params)
  require_state("cancel", { "thinking", "cancelling" })
  return { actions = { action.key("escape") }, last_intent = "cancelling", expect = EXPECT_CANCELLED }
end

function M.key(params)
  return { actions = key_actions(need_string(params, "key", "key")), expect = CHANGED }
end

-- slash_command runs /command without marking a conversation turn (the
-- same paste-then-Enter as send_prompt, retry included).
function M.slash_command(params)
  local command = params.command or params.name
  if type(command) ~= "string" or command == "" then
    ptywright.invalid_params("slash_command: params.command: want a non-empty string")
  end
  if not starts(command, "/") then
    command = "/" .. command
  end
  return { actions = { action.bracketed_paste(command), action.key("enter") }, last_intent = "slash_command",
    expect = { matcher = matcher.none({ matcher.contains_text(" > " .. first_line(command, 40)) }) },
    retry = { action.key("enter") }, await = { states = PROMPT_STATES, within_ms = AWAIT_MS } }
end

-- parser_override pins the preset's version selection for this session:
-- params.version is the Gemini CLI version to read screens as, absent to
-- follow the banner again. It sends no keys.
function M.parser_override(params)
  local v = params and params.version
  if v ~= nil and (type(v) ~= "string" or not v:match("^%d+%.%d+%.%d+[%w%.%-]*$")) then
    ptywright.invalid_params("parser_override: params.version must be a Gemini CLI version such as 0.61.0, or absent to clear the override")
  end
  memo.override = v
  return { actions = {} }
end

-- exit quits the CLI: Ctrl+C twice on an idle composer (the first arms
-- "Press Ctrl+C again to exit.").
function M.exit(_params)
  require_state("exit", { "ready", "completed_turn", "error", "unrecognized" })
  return { actions = { action.key("ctrl_c"), action.key("ctrl_c") }, last_intent = "",
    expect = { matcher = matcher.any({ matcher.process_exited(), matcher.contains_text("Agent powering down") }), within_ms = 10000 } }
end

-- Wait matchers. Regexes are Go RE2 over the screen's plain text.

-- The idle live area: an empty composer (the placeholder), the footer
-- under it, no spinner row above the rule.
local IDLE = "(?m)^ > " .. PLACEHOLDER .. "\\s*\\n(?:.*\\n){0,4}.*\\z"

local function stable_ms(params, default)
  local v = tonumber(params.stable_ms) or tonumber(params.completed_turn_stable_ms) or default
  return math.max(0, math.floor(v))
end

-- A confirmation box whose bottom border ends the screen.
local DIALOG_AT_EDGE = "(?m)^ ?" .. BOX_BOTTOM .. RULE .. "+" .. "\\S*\\s*\\z"
local APPROVAL = "(?m)^" .. VBAR .. " \\? \\S+"

local function approval_matcher()
  return matcher.all({ matcher.screen_regex(DIALOG_AT_EDGE), matcher.screen_regex(APPROVAL), matcher.contains_text("Allow") })
end

-- wait_turn_matcher: the turn ended (an idle composer, no spinner, the
-- title not "Working") or a dialog asks, and the screen has been still
-- for completed_turn_stable_ms (or stable_ms).
function M.wait_turn_matcher(params)
  return matcher.all({
    matcher.any({
      matcher.all({ matcher.screen_regex(IDLE), matcher.none({ matcher.contains_text(BUSY_ROW) }) }),
      matcher.screen_regex(DIALOG_AT_EDGE),
    }),
    matcher.screen_stable(stable_ms(params, 500)),
  })
end

-- wait_approval_matcher: a tool's confirmation dialog, still for
-- stable_ms (default 300).
function M.wait_approval_matcher(params)
  return matcher.all({ approval_matcher(), matcher.screen_stable(stable_ms(params, 300)) })
end

-- wait_ready_matcher: the idle composer, still for stable_ms (default 500).
function M.wait_ready_matcher(params)
  return matcher.all({ matcher.screen_regex(IDLE), matcher.none({ matcher.contains_text(BUSY_ROW) }),
    matcher.screen_stable(stable_ms(params, 500)) })
end

local function intent(name, description, schema)
  return { name = name, description = description, params_schema = schema or { type = "object", properties = {} } }
end

local PROMPT_SCHEMA = { type = "object", required = { "prompt" }, properties = { prompt = { type = "string", minLength = 1 } } }
local STABLE_SCHEMA = { type = "object", properties = { stable_ms = { type = "integer", minimum = 0 } } }
-- The params every answer takes, checked by the host at the moment of the
-- key: the dialog the caller saw (metadata.dialog.id) and the option it
-- means; a mismatch is -32008 dialog_mismatch and nothing is pressed.
local ANSWER_SCHEMA = { type = "object", properties = { dialog_id = { type = "string" }, label = { type = "string" },
  index = { type = "integer", minimum = 1 } } }

function M.describe()
  return {
    intents = {
      intent("send_prompt", "Bracketed-pastes the prompt and presses Enter; sets last_intent prompt_submitted (anchors a lifecycle turn). The CLI takes an Enter right after a paste as a newline, so the plan's retry Enter submits (receipt attempts 2). The keys wait for a composer the plugin knows is ready (ready, completed_turn or error; never during the trust restart; receipt not_sent when none comes); refused (-32006) when the composer still holds text.", PROMPT_SCHEMA),
      intent("approve", "Allows once: the digit of \"Allow once\" on a tool's confirmation; \"Trust folder\" on the trust dialog. On a tool's confirmation the host checks, at the moment of the key, that the dialog and the option are the ones the plan was made on (and the caller's dialog_id, label, index).", ANSWER_SCHEMA),
      intent("approve_always", "Allows the tool for this session (\"Allow for this session\"); label-checked like approve.", ANSWER_SCHEMA),
      intent("deny", "Esc: on a tool's confirmation this cancels the tool and ends the turn (\"Request cancelled\"); on the trust dialog it picks \"Don't trust\". On a tool's confirmation, label-checked like approve.", ANSWER_SCHEMA),
      intent("choose_option", "Picks a numbered option of the dialog on screen by its digit (the CLI acts on it at once). On a tool's confirmation, label-checked like approve.",
        { type = "object", properties = { index = { type = "integer", minimum = 1 }, option = { type = { "string", "integer" } }, label = { type = "string" },
          dialog_id = { type = "string" } } }),
      intent("cancel", "Esc while a turn runs; sets last_intent cancelling. Refused when idle (Esc there clears the composer)."),
      intent("key", "Sends a named key (esc, return, pgup, ctrl+c, ^c, shift-tab...) or types the string.",
        { type = "object", required = { "key" }, properties = { key = { type = "string", minLength = 1 } } }),
      intent("slash_command", "Pastes /command and presses Enter (retried like send_prompt) without marking a turn.",
        { type = "object", properties = { command = { type = "string", minLength = 1 }, name = { type = "string", minLength = 1 } } }),
      intent("approve_trust", "Trusts the folder (\"Trust folder\", digit 1); the CLI restarts itself (state restarting)."),
      intent("deny_trust", "\"Don't trust\": the CLI goes on in an untrusted folder."),
      intent("parser_override", "Sends no keys: pins the parser's version selection to params.version (absent: follow the banner again); assessments then report requested_version, selection_source override and a preset_override_used anomaly.",
        { type = "object", properties = { version = { type = "string", pattern = "^[0-9]+\\.[0-9]+\\.[0-9]+" } } }),
      intent("exit", "Ctrl+C twice on an idle composer: the CLI prints its session summary and exits."),
    },
    wait_matchers = {
      { name = "wait_turn_matcher", description = "The turn ended (the idle composer, no spinner row) or a dialog's box ends the screen, still for completed_turn_stable_ms (default 500).",
        params_schema = { type = "object", properties = { completed_turn_stable_ms = { type = "integer", minimum = 0 }, stable_ms = { type = "integer", minimum = 0 } } } },
      { name = "wait_approval_matcher", description = "A tool's confirmation dialog ends the screen, still for stable_ms (default 300).", params_schema = STABLE_SCHEMA },
      { name = "wait_ready_matcher", description = "The idle composer with no spinner row, still for stable_ms (default 500).", params_schema = STABLE_SCHEMA },
    },
    states = STATES,
    ui_contexts = { "normal_prompt", "slash_command", "selection_menu", "approval_prompt", "trust_prompt", "restarting", "startup", "shortcuts_overlay", "exited", "unknown" },
    parser = { provider_id = PROVIDER_ID, parser_preset_id = PRESET_ID, parser_preset_version = PRESET_VERSION,
      output_format = OUTPUT_FORMAT, version_floor = VERSION_FLOOR, projector_id = PROJECTOR_ID,
      anomalies = { "unknown_version_floor_used", "baseline_invalidated", "preset_override_used", "unrecognized_screen", "error_banner" } },
  }
end

return M
