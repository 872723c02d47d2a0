-- The built-in adapter for the OpenAI Codex CLI (codex-cli 0.169.0).
--
-- classify(ctx) names the state a screen shows and reports the shared
-- surface assessment (availability, business_state, input_mode,
-- ui_context); the intents turn verbs into keys; the *_matcher functions
-- build waits; project(ctx) strips Codex's chrome for the dialog
-- projection. The screens and keys this relies on are documented, with a
-- capture of each, in testdata/fixtures/codex/CAPTURES.md.
--
-- What the Codex TUI looks like, in short: an alternate screen with the
-- transcript on top and, at the bottom, either the composer ("› " line)
-- above a one- or two-line footer, or a modal bottom pane (approval
-- dialog, pickers) whose highlighted row also starts with "› ". Busy is
-- shown by a working line ("• Working (3s • esc to interrupt)"), which
-- Codex hides while the answer streams: then only the terminal title's
-- Braille spinner (ctx.title) and the missing "Worked for" line after the
-- last prompt say the turn is still running.

local M = {}

local action = ptywright.action
local matcher = ptywright.matcher

local PROVIDER_ID = "codex"
local PRESET_ID = "codex-tui"
local PRESET_VERSION = "1"
-- The oldest version this preset was checked against; used when the
-- banner is not on screen or names a version not listed below.
local VERSION_FLOOR = "0.169.0"
local KNOWN_VERSIONS = { ["0.169.0"] = true }

-- Glyphs, as UTF-8 bytes.
local PROMPT = "\226\128\186" -- › U+203A: composer, past prompts, selected list rows
local BULLET = "\226\128\162" -- • U+2022: transcript entries, working line
local HOLLOW = "\226\151\166" -- ◦ U+25E6: the working line's other frame
local SQUARE = "\226\150\160" -- ■ U+25A0: error / interrupt banner
local ARROW_IN = "\226\134\179" -- ↳ U+21B3: a queued follow-up

-- Texts Codex shows in an empty composer (dim in the real screen).
local PLACEHOLDERS = { ["Ask Codex to do anything"] = true }

-- The states classify reports, in describe() order.
local STATES = {
  { name = "starting", description = "Codex is not taking prompts yet: a blank screen before the first paint (2-4 s), output the parser does not know, or the composer with the start-up wait footer (\"Waiting for startup\"; Enter is ignored then)." },
  { name = "waiting_for_login", description = "Codex's sign-in screens (no API-key provider configured): method list, browser or device-code flow, API-key field." },
  { name = "waiting_for_trust", description = "The folder trust prompt (a git repository not yet trusted)." },
  { name = "waiting_for_model_select", description = "A model choice waits: the model or reasoning-effort picker (/model), or the start-up model migration prompt." },
  { name = "waiting_for_permission", description = "An approval dialog (\"Would you like to run the following command?\"); metadata.approval has the command and options." },
  { name = "waiting_for_user_input", description = "A question or a choice waits: the question dialog (metadata.question, menu question), the resume picker (menu resume), or another numbered selection menu the plugin does not know by name (menu unknown)." },
  { name = "local_ui_screen", description = "A local overlay that takes the keyboard: keyboard shortcuts, start-up warnings (F2), the agent command center, transcript backtrack mode." },
  { name = "unrecognized", description = "A composer screen with a part no rule recognises (an unknown footer hint, a line above the composer): not ready, not submit-ready; anomaly unrecognized_screen names the row. Intents that type a prompt wait for a screen the plugin knows." },
  { name = "ready", description = "The composer takes input: empty, holding text, or showing the slash-command popup (ui_context slash_command); also after an interrupted turn." },
  { name = "thinking", description = "A turn runs: working or reconnecting line, streaming answer (title spinner), queued follow-ups, or a prompt with no end marker yet." },
  { name = "cancelling", description = "A turn still runs after the cancel intent (last_intent cancelling)." },
  { name = "completed_turn", description = "The last turn ended normally (\"Worked for\" after the last prompt) and the composer is empty; metadata.turn.text is the answer." },
  { name = "error", description = "The last turn ended with an error banner (■ ...); metadata.error has kind, message and retry_after_s. The prompt is usable again. Also a configuration or start-up error Codex exits with (disconnected; metadata.unsent_draft holds a prompt it could not send)." },
  { name = "exited", description = "Codex exited: the primary screen shows the token usage and the codex resume hint." },
}

-- What the instance remembers between calls: the version read from the
-- banner (it scrolls away), and the last classification, which the intents
-- consult (options to choose from, whether a dialog is up).
local memo = { version = nil, state = nil, options = nil, selected = nil, menu = nil, composer_empty = nil, composer_text = nil }

-- String and row helpers: ptywright.text, shared with the other built-in
-- plugins (white space there is Lua's %s and the no-break space U+00A0;
-- starts, contains and after take one string or a list of them).

local text = ptywright.text
local starts = text.starts
local has = text.contains
local after = text.after
local trim = text.trim
local blank = text.is_blank
local split_lines = text.split_lines
local find_line = text.find_line
local nonblank = text.nonblank
local block = text.block
local columns = text.columns
local segments = text.segments
local first_line = text.first_line

local PROMPT_HEAD = PROMPT .. " "
local BULLET_HEADS = { BULLET .. " ", HOLLOW .. " " }

-- prompt_rest returns the text after "› " when line starts with it.
local function prompt_rest(line)
  if line == PROMPT then
    return ""
  end
  return after(line, PROMPT_HEAD)
end

-- bullet_rest returns the text after a "• " or "◦ " bullet.
local function bullet_rest(line)
  return after(line, BULLET_HEADS)
end

local function excerpt(lines, from, to)
  local out = {}
  for i = from, to do
    out[#out + 1] = lines[i]
  end
  -- Drop the blank rows around the block and collapse runs of them.
  local text = table.concat(out, "\n"):gsub("\n%s*\n[%s\n]*", "\n\n")
  return trim(text)
end

-- Numbered option lists: "› 1. Yes, proceed (y)", "  2. Use existing
-- model", "> 1. Sign in with ChatGPT" (sign-in lists mark with ">"), with
-- an indented description or wrapped label below.
local function parse_options(lines, from, to)
  local opts, selected = {}, nil
  for i = from, to do
    local line = lines[i]
    local mark, rest = false, nil
    local pr = prompt_rest(line)
    if pr then
      mark, rest = true, pr
    elseif starts(line, "> ") then
      mark, rest = true, line:sub(3)
    elseif starts(line, "  ") then
      rest = line:sub(3)
      local inner = prompt_rest(rest) -- "  › 1. …": the question dialog's highlight
      if inner then
        mark, rest = true, inner
      end
    end
    local n, body
    if rest then
      n, body = rest:match("^(%d+)%.%s+(.-)%s*$")
    end
    if not n and #opts > 0 and rest and rest:match("^    %S") then
      -- Past 9 a list numbers no more (no digit picks it): the label
      -- stands where "10. " would end it ("      GPT-5.6-Luna",
      -- "›     GPT-5.5 (current)"). Descriptions sit further in.
      n, body = tostring(opts[#opts].index + 1), trim(rest)
    end
    if n then
      local label, desc = columns(body)
      local opt = { index = tonumber(n), label = label, selected = mark }
      if desc then
        opt.description = desc
      end
      opts[#opts + 1] = opt
      if mark then
        selected = opt.index
      end
    elseif #opts > 0 and line:match("^%s%s%s+%S") then
      local last = opts[#opts]
      local _, ticks = last.label:gsub("`", "")
      if ticks % 2 == 1 then
        -- A label wrapped inside a `quoted` command.
        last.label = last.label .. " " .. trim(line)
      elseif not last.description then
        last.description = trim(line)
      end
    end
  end
  for _, opt in ipairs(opts) do
    local label, key = opt.label:match("^(.-)%s+%((%l%l?%l?)%)$")
    if label then
      opt.label, opt.key = label, key
    end
  end
  return opts, selected
end

-- The parts of a screen with a composer.

-- find_composer locates the composer: the last "› " line, when what
-- follows it is the composer's own continuation lines and the footer (at
-- most three indented lines after a blank one). A numbered "› N." row is a
-- modal list's selection, not a composer.
local function find_composer(lines)
  for i = #lines, 1, -1 do
    local rest = prompt_rest(lines[i])
    if rest then
      if rest:match("^%d+%.%s") or rest:match("^%s") then
        return nil -- a list's highlighted row, numbered or not
      end
      local j = i + 1
      local text = { rest }
      while j <= #lines and not blank(lines[j]) do
        if not starts(lines[j], "  ") then
          return nil
        end
        text[#text + 1] = lines[j]:sub(3)
        j = j + 1
      end
      local footer, footer_rows = {}, {}
      for k = j, #lines do
        if not blank(lines[k]) then
          if not starts(lines[k], "  ") then
            return nil
          end
          footer[#footer + 1] = lines[k]
          footer_rows[#footer_rows + 1] = k
        end
      end
      if #footer > 3 then
        return nil
      end
      return { row = i, last = j - 1, text = table.concat(text, "\n"), footer = footer, footer_rows = footer_rows }
    end
  end
  return nil
end

local EFFORTS = { default = true, minimal = true, low = true, medium = true, high = true, xhigh = true }

-- Footer hints Codex 0.169 draws under the composer, one " · "-separated
-- segment each (or a right-aligned one after a run of spaces). A segment
-- not listed here is a screen part the plugin was never shown: the
-- reading then turns conservative (see unknown_reading).
local FOOTER_HINTS = {
  ["? for shortcuts"] = true, ["\226\134\144 for agents"] = true, ["f2 to view"] = true,
  ["tab to queue message"] = "tab_to_queue", ["esc again to edit previous message"] = "esc_again_to_edit",
}
local FOOTER_HINT_PATTERNS = { "^\226\154\160 %d+ warnings?$", "^%d+%% context left$", "^%d+ warnings?$" }

local function known_hint(seg)
  if FOOTER_HINTS[seg] then
    return true
  end
  for _, p in ipairs(FOOTER_HINT_PATTERNS) do
    if seg:match(p) then
      return true
    end
  end
  return false
end

-- Busy signs in a line the plugin does not know: it then reads as work
-- in progress rather than as an unknown idle screen.
local BUSY_WORDS = { "Waiting", "Starting", "Loading", "Connecting", "Retrying", "Reconnecting", "Booting", "Initializing" }
local ESC_HINTS = { "esc to cancel", "esc to interrupt", "esc cancel", "esc interrupt" }

local function busy_sign(line)
  if has(line:lower(), ESC_HINTS) then
    return true
  end
  if line:match("\226[\160-\163][\128-\191]") or bullet_rest(trim(line)) then
    return true -- a Braille spinner frame, or the working line's bullets
  end
  return has(line, BUSY_WORDS)
end

-- parse_footer reads "  GPT-5.5 default · ~/work · Fake task" and the
-- hint line ("← for agents · ? for shortcuts   ⚠ 1 warning · f2 to
-- view"). It returns the status, the hint a line names, the start-up
-- wait's text when Codex shows "Waiting for startup", and the lines it
-- does not recognise ({index, text}, index into footer).
local function parse_footer(footer)
  local status = {}
  local hint, startup = nil, nil
  local unknown = {}
  for k, line in ipairs(footer) do
    local t = trim(line)
    local parts = {}
    for part in (t .. " \194\183 "):gmatch("(.-) \194\183 ") do
      parts[#parts + 1] = trim(part)
    end
    if #parts >= 2 and (starts(parts[2], "~") or starts(parts[2], "/")) then
      local model = parts[1]
      local name, effort = model:match("^(.-)%s+(%S+)$")
      if name and EFFORTS[effort] then
        status.model, status.effort = name, effort
      else
        status.model = model
      end
      status.directory = parts[2]
      if parts[3] and not has(parts[3], "f2 to view") then
        status.thread_title = parts[3]
      end
    elseif starts(t, "Waiting for startup") then
      startup = t
    else
      local known = true
      -- A right-aligned note shares the line after a run of spaces.
      for _, seg in ipairs(segments(t, 3)) do
        local h = FOOTER_HINTS[seg]
        if type(h) == "string" then
          hint = h
        end
        local warnings = seg:match("^\226\154\160 (%d+) warnings?$")
        if warnings then
          status.warnings = tonumber(warnings)
        end
        if not known_hint(seg) then
          known = false
        end
      end
      if not known then
        unknown[#unknown + 1] = { index = k, text = t }
      end
    end
  end
  return status, hint, startup, unknown
end

-- The working line and what hangs below it.
local function parse_working(lines, from, to)
  for i = to, from, -1 do
    local rest = bullet_rest(lines[i])
    if rest and has(rest, "esc to interrupt)") then
      local w = { line = trim(lines[i]) }
      w.label = rest:match("^(.-)%s*%(") or rest
      w.elapsed = rest:match("%(([^%(]-)%s*" .. BULLET .. " esc to interrupt%)")
      local attempt, max = rest:match("Reconnecting%.%.%. (%d+)/(%d+)")
      if attempt then
        w.reconnect_attempt, w.reconnect_max = tonumber(attempt), tonumber(max)
      end
      if has(rest, "waiting for network") then
        w.waiting_for_network = true
      end
      local detail = lines[i + 1] and lines[i + 1]:match("^%s+\226\148\148 (.*)$")
      if detail then
        w.detail = trim(detail)
      end
      return w, i
    end
  end
  return nil
end

local function parse_queued(lines, from, to)
  local start = nil
  for i = from, to do
    if lines[i] == BULLET .. " Queued follow-up inputs" then
      start = i
    end
  end
  if not start then
    return nil
  end
  local queued = {}
  for i = start + 1, to do
    local text = lines[i]:match("^%s+" .. ARROW_IN .. " (.*)$")
    if text then
      queued[#queued + 1] = trim(text)
    elseif blank(lines[i]) then
      break
    end
  end
  return queued, start
end

-- Tool and approval entries in the transcript: not part of an answer.
local TOOL_PREFIXES = { "Ran ", "Running ", "Exited ", "Explored", "Exploring", "Edited ", "Added ", "Deleted ",
  "Read ", "Search", "List", "Waited", "Updated Plan", "Called ", "Calling ", "Applied", "Queued follow-up" }

-- turn_analysis reads the transcript between the top of the screen and
-- last (the row above the composer's surroundings): the last user prompt
-- and what ended the turn after it.
local function turn_analysis(lines, last, last_intent)
  local prompt_row, prompt_text = nil, nil
  for i = last, 1, -1 do
    local rest = prompt_rest(lines[i])
    if rest and not rest:match("^%d+%.%s") then
      prompt_row, prompt_text = i, rest
      break
    end
  end
  local from = prompt_row and prompt_row + 1 or 1
  local worked_row, banner_row = nil, nil
  for i = from, last do
    local line = lines[i]
    if line:match("^%s+Worked for ") then
      worked_row, banner_row = i, nil
    elseif starts(line, SQUARE .. " ") then
      banner_row, worked_row = i, nil
    end
  end
  local turn = { prompt = prompt_text }
  if banner_row then
    local text = { lines[banner_row]:sub(#SQUARE + 2) }
    local _, banner_end = block(lines, banner_row, banner_row, last)
    for j = banner_row + 1, banner_end do
      text[#text + 1] = trim(lines[j])
    end
    local message = table.concat(text, " ")
    if starts(message, "Conversation interrupted") then
      turn.state = "interrupted"
    else
      turn.state = "error"
    end
    turn.banner = message
    turn.end_row = banner_row
  elseif worked_row then
    turn.state = "completed"
    turn.worked_for = trim(lines[worked_row]):match("^Worked for (.-)%s+" .. BULLET) or trim(lines[worked_row]):match("^Worked for (.*)$")
    turn.end_row = worked_row
  elseif prompt_row then
    turn.state = "running"
  else
    -- No prompt on screen (scrolled away, or none yet): a turn is running
    -- only if one was submitted and agent output is visible.
    turn.state = "none"
    if last_intent == "prompt_submitted" then
      for i = 1, last do
        if bullet_rest(lines[i]) then
          turn.state = "running"
          break
        end
      end
    end
  end
  return turn
end

-- answer_text is the agent message that ends a completed turn: the block
-- above "Worked for", from its "• " head (or, when the head scrolled away,
-- from below the prompt or the top of the screen) down, with the bullet
-- and indent removed. A turn that ends with a tool entry has no answer.
local function answer_text(lines, prompt_row, end_row)
  local first = (prompt_row or 0) + 1
  for i = end_row - 1, first, -1 do
    local line = lines[i]
    if not blank(line) and not starts(line, " ") then
      local rest = bullet_rest(line)
      if not rest or starts(rest, TOOL_PREFIXES) then
        return ""
      end
      first = i
      break
    end
  end
  local out = {}
  for i = first, end_row - 1 do
    local line = lines[i]
    local rest = bullet_rest(line)
    if i == first and rest then
      out[#out + 1] = rest
    elseif starts(line, "  ") then
      out[#out + 1] = line:sub(3)
    else
      out[#out + 1] = line
    end
  end
  return trim(table.concat(out, "\n"))
end

-- error_info turns an error banner into {kind, message, status?, retry_after_s?}.
local function error_info(message)
  local e = { message = message, kind = "unknown" }
  local status = message:match("status:? (%d%d%d)") or message:match("unexpected status (%d%d%d)")
  if status then
    e.status = tonumber(status)
  end
  local lower = message:lower()
  if e.status == 429 or has(lower, "rate limit") or has(lower, "too many requests") then
    e.kind = "rate_limited"
  elseif e.status == 401 or e.status == 403 or has(lower, "unauthorized") or has(lower, "api key") then
    e.kind = "auth"
  elseif has(lower, "high demand") or (e.status and e.status >= 500) then
    e.kind = "server"
  elseif has(lower, "stream disconnected") then
    e.kind = "stream_disconnected"
  elseif has(lower, "context window") then
    e.kind = "context_window"
  elseif has(lower, "usage limit") or has(lower, "quota") then
    e.kind = "usage_limit"
  end
  local retry = lower:match("try again in (%d+%.?%d*) ?s") or lower:match("retry after (%d+)")
  if retry then
    e.retry_after_s = tonumber(retry)
  end
  return e
end

-- The assessment.

local function braille_spinner(title)
  return title ~= nil and title:match("^\226[\160-\163][\128-\191] ") ~= nil
end

local function parser_metadata(detected)
  local pm = { provider_id = PROVIDER_ID, parser_preset_id = PRESET_ID, parser_preset_version = PRESET_VERSION }
  if detected then
    pm.detected_version = detected
  end
  return pm
end

local function version_anomalies(detected)
  if not detected then
    return { { code = "unknown_version_floor_used", message = "no Codex version banner seen; using the " .. VERSION_FLOOR .. " preset" } }
  end
  if not KNOWN_VERSIONS[detected] then
    return { { code = "unknown_version_floor_used", message = "Codex " .. detected .. " is not a version this preset knows; using the " .. VERSION_FLOOR .. " preset" } }
  end
  return {}
end

-- INPUT_SETTLE_MS is how long after a state's first frame Codex takes keys
-- (the host holds an intent's keys until then). On 0.169.0 an Enter sent
-- 0-10 ms after the trust prompt appeared was lost in 11 of 20 runs, and
-- when taken at once Codex often died ("timed out discarding buffered
-- terminal input"); from 20 ms on, 40 of 40 were taken. The composer and
-- the approval dialog took keys at once.
-- A running turn takes Esc as an interrupt once its "Working (… • esc to
-- interrupt)" row is drawn, from 0 ms on (48 of 48); before that, on the
-- prompt-echo frame that already classifies as thinking, Esc is an
-- idle-composer Esc ("esc again to edit previous message") and the turn runs
-- on. The row came 0-517 ms after the echo frame (median ~30 ms). So
-- thinking settles 100 ms from the row's first frame, and an echo frame
-- without the row asks for WORKING_ROW_WAIT_MS, which the host cuts short
-- when the row appears (a new frame of the state).
local INPUT_SETTLE_MS = {
  waiting_for_trust = 150,
  thinking = 100,
}
local WORKING_ROW_WAIT_MS = 2000

-- result assembles classify's table; a = {availability, business_state,
-- input_mode, ui_context, excerpt?, anomalies?}.
local function result(view, state, confidence, evidence, a, metadata)
  local anomalies = version_anomalies(view.version)
  for _, an in ipairs(a.anomalies or {}) do
    anomalies[#anomalies + 1] = an
  end
  local assessment = {
    availability = a.availability or "supported",
    business_state = a.business_state,
    input_mode = a.input_mode,
    ui_context = a.ui_context,
    operator_blocked_excerpt = a.excerpt,
    parser_metadata = parser_metadata(view.version),
  }
  if #anomalies > 0 then
    assessment.anomalies = anomalies
  end
  metadata = metadata or {}
  memo.state = state
  memo.options = metadata.options
  memo.selected = metadata.selected
  memo.menu = metadata.menu
  memo.dialog = metadata.dialog
  memo.composer_empty = metadata.composer and metadata.composer.empty
  memo.composer_text = metadata.composer and metadata.composer.text
  return { state = state, confidence = confidence, evidence = evidence, metadata = metadata, assessment = assessment,
    input_settle_ms = INPUT_SETTLE_MS[state] }
end

local AWAITING = "awaiting_operator"

-- The detectors, tried in order. Each returns a result or nil.

local function detect_exited(view)
  local lines = view.lines
  if not (has(view.screen, "codex resume") or has(view.screen, "Token usage: total=") or has(view.screen, "Error loading configuration")
      or has(view.screen, "CODEX_HOME points to")) then
    return nil
  end
  if find_line(lines, "To continue this session, run:") or (lines[1] and lines[1]:match("^Token usage: total=")) then
    local metadata = {}
    local resume = view.screen:match("codex resume (%x+%-[%x%-]+)")
    if resume then
      metadata.resume_session = resume
    end
    return result(view, "exited", 0.9, "session ended: codex resume hint",
      { availability = "disconnected", business_state = "unknown", input_mode = "closed", ui_context = "unknown" }, metadata)
  end
  -- Fatal start-up errors Codex prints on the primary screen before it
  -- exits; a transcript line quoting them is indented or bulleted.
  local i = nil
  for k, line in ipairs(lines) do
    if line:find("^%a") and (has(line, "Error loading configuration") or has(line, "CODEX_HOME points to")) then
      i = k
      break
    end
  end
  if i then
    local message = trim(lines[i])
    return result(view, "error", 0.9, "configuration error: " .. message,
      { availability = "disconnected", business_state = "unknown", input_mode = "closed", ui_context = "unknown",
        anomalies = { { code = "error_banner", message = message } } },
      { error = { kind = "config", message = message } })
  end
  return nil
end

local function detect_login(view)
  if not has(view.screen, "Welcome to Codex, OpenAI's command-line coding agent") then
    return nil
  end
  local lines = view.lines
  local login = { step = "unknown" }
  local ui = "login"
  if find_line(lines, "\226\149\173API key") or find_line(lines, "Paste or type your API key below") then
    login.step, ui = "api_key", "login_api_key"
  elseif find_line(lines, "Finish signing in via your browser") then
    login.step = "browser"
    login.url = view.screen:match("(https://auth%.openai%.com/%S+)")
  elseif find_line(lines, "Choose how you want to use Codex") then
    login.step = "choose_method"
  else
    for _, line in ipairs(lines) do
      if line == "  Sign in another way" then
        login.step = "other_way"
      end
    end
  end
  for i, line in ipairs(lines) do
    if line:match("^%S.* failed: ") then
      login.error = table.concat(lines, " ", block(lines, i, i))
    end
  end
  local opts, selected = parse_options(lines, 1, #lines)
  local metadata = { login = login }
  if #opts > 0 then
    metadata.options, metadata.selected = opts, selected
  end
  return result(view, "waiting_for_login", 0.95, "sign-in screen: Welcome to Codex (" .. login.step .. ")",
    { business_state = AWAITING, input_mode = "modal", ui_context = ui, excerpt = excerpt(lines, 1, #lines) }, metadata)
end

local function detect_trust(view)
  if not has(view.screen, "Trust this folder?") then
    return nil
  end
  local lines = view.lines
  local q = find_line(lines, "Trust this folder?")
  local opts, selected = parse_options(lines, q, #lines)
  local metadata = { options = opts, selected = selected, trust = {} }
  local fa = find_line(lines, "Folder access")
  if fa and lines[fa + 1] then
    metadata.trust.path = trim(lines[fa + 1])
  end
  return result(view, "waiting_for_trust", 0.95, "trust prompt: Trust this folder?",
    { business_state = AWAITING, input_mode = "modal", ui_context = "trust_prompt", excerpt = excerpt(lines, fa or q, #lines) }, metadata)
end

local function detect_migration(view)
  if not (has(view.screen, "Try new model") and has(view.screen, "Use existing model")) then
    return nil
  end
  local lines = view.lines
  local opts, selected = parse_options(lines, 1, #lines)
  local try, keep = false, false
  for _, o in ipairs(opts) do
    if o.label == "Try new model" then
      try = true
    elseif o.label == "Use existing model" then
      keep = true
    end
  end
  if not (try and keep) then
    return nil
  end
  local headline = view.screen:match("\n  (Meet [^\n]-)%s*\n") or "model migration"
  return result(view, "waiting_for_model_select", 0.9, "model migration prompt: " .. headline,
    { business_state = AWAITING, input_mode = "modal", ui_context = "model_migration", excerpt = excerpt(lines, 1, #lines) },
    { options = opts, selected = selected, menu = "model_migration", migration = { headline = headline } })
end

local function detect_agent_center(view)
  if not (view.lines[1] and has(view.lines[1], "Agent command center")) then
    return nil
  end
  local counts = {}
  for name, n in trim(view.lines[2] or ""):gmatch("(%a[%a ]-) (%d+)") do
    local key = trim(name):lower():gsub(" ", "_")
    counts[key] = tonumber(n)
  end
  return result(view, "local_ui_screen", 0.9, "agent command center",
    { business_state = "idle", input_mode = "modal", ui_context = "agent_center" }, { overlay = "agent_center", counts = counts })
end

local hash32 = text.hash

-- The tool kinds of metadata.dialog.tool, by approval kind.
local APPROVAL_TOOLS = { exec = "shell", edit = "edit", permissions = "permissions" }

-- dialog_of is the shape every built-in plugin reports for a permission
-- dialog (metadata.dialog, see ptywright.Dialog). Its key is the dialog's
-- text from the question to the key hint, which the highlight does not
-- change; classify adds the instance to make the id.
local function dialog_of(approval, lines, q, foot, opts, selected)
  local text = {}
  for i = q, foot do
    text[#text + 1] = trim((prompt_rest(lines[i]) or lines[i]):gsub("^%s*›%s*", ""))
  end
  local d = {
    kind = "permission",
    key = "perm-" .. hash32(table.concat(text, "\n")),
    tool = APPROVAL_TOOLS[approval.kind] or (has(approval.question, "grant these permissions") and "permissions") or "other",
    tool_name = approval.kind,
    command = approval.command,
    path = approval.path,
    options = {},
    selected_index = selected,
  }
  for i, o in ipairs(opts) do
    d.options[i] = { index = o.index, label = o.label, key = o.key }
  end
  return d
end

local function detect_approval(view)
  if not has(view.screen, "Press enter to confirm or esc to cancel") then
    return nil
  end
  local lines = view.lines
  local q, question = nil, nil
  for i, line in ipairs(lines) do
    local text = line:match("^  (Would you like to .-%?)%s*$")
    if text then
      q, question = i, text
    end
  end
  local foot = find_line(lines, "Press enter to confirm or esc to cancel", q or 1)
  if not (q and foot) then
    return nil
  end
  if nonblank(lines, foot + 1) then
    return nil -- text below the key hint: not the dialog's (quoted in the transcript, say)
  end
  local approval = { question = question, kind = "other" }
  if has(question, "run the following command") then
    approval.kind = "exec"
  elseif has(question, "edit") then
    approval.kind = "edit"
  end
  local list_start = foot
  for i = q + 1, foot - 1 do
    local line = lines[i]
    local reason = line:match("^  Reason: (.*)$")
    local env = line:match("^  Environment: (.*)$")
    local dest = line:match("^  Destination: (.*)$")
    local rule = line:match("^  Permission rule: (.*)$")
    if dest then
      approval.path = trim(dest)
    elseif rule then
      approval.permission_rule = trim(rule)
    end
    if reason then
      approval.reason = trim(reason)
    elseif env then
      approval.environment = trim(env)
    elseif starts(line, "  $ ") and not approval.command then
      local cmd = { line:sub(5) }
      local _, cmd_end = block(lines, i, i, foot - 1)
      for j = i + 1, cmd_end do
        cmd[#cmd + 1] = trim(lines[j])
      end
      approval.command = trim(table.concat(cmd, " "))
    end
    local pr = prompt_rest(line)
    if list_start == foot and ((pr and pr:match("^%d+%.")) or line:match("^  %d+%. ")) then
      list_start = i
    end
  end
  local opts, selected = parse_options(lines, list_start, foot - 1)
  approval.options = opts
  local metadata = { approval = approval, options = opts, selected = selected, dialog = dialog_of(approval, lines, q, foot, opts, selected) }
  return result(view, "waiting_for_permission", 0.95, "approval dialog: " .. question,
    { business_state = AWAITING, input_mode = "modal", ui_context = "approval_prompt", excerpt = excerpt(lines, q, foot) }, metadata)
end

local PICKERS = {
  { probe = "Select Model and Effort", heading = "^  (Select Model and Effort)%s*$", menu = "model_picker", evidence = "model picker: " },
  { probe = "Select Reasoning Level for", heading = "^  (Select Reasoning Level for .-)%s*$", menu = "model_effort_picker", evidence = "effort picker: " },
}

local function detect_picker(view)
  local lines = view.lines
  for _, p in ipairs(PICKERS) do
    for i, line in ipairs(has(view.screen, p.probe) and lines or {}) do
      local heading = line:match(p.heading)
      if heading then
        local opts, selected = parse_options(lines, i + 1, #lines)
        if #opts > 0 then
          return result(view, "waiting_for_model_select", 0.9, p.evidence .. heading,
            { business_state = AWAITING, input_mode = "modal", ui_context = "selection_menu", excerpt = excerpt(lines, i, #lines) },
            { options = opts, selected = selected, menu = p.menu, heading = heading })
        end
      end
    end
  end
  return nil
end

local function detect_overlay(view)
  local lines = view.lines
  local last = trim(lines[#lines] or "")
  if starts(last, "? / esc close") and find_line(lines, "Keyboard shortcuts") then
    return result(view, "local_ui_screen", 0.9, "shortcuts overlay: Keyboard shortcuts",
      { business_state = "idle", input_mode = "modal", ui_context = "shortcuts_overlay" }, { overlay = "shortcuts" })
  end
  for _, line in ipairs(has(view.screen, "Warnings \194\183 ") and lines or {}) do
    local n, total = line:match("^  Warnings \194\183 (%d+) of (%d+)")
    if n then
      return result(view, "local_ui_screen", 0.9, "warnings overlay: " .. trim(line),
        { business_state = "idle", input_mode = "modal", ui_context = "warnings_overlay" },
        { overlay = "warnings", warning = tonumber(n), warnings = tonumber(total) })
    end
  end
  if starts(last, "Browsing") and has(last, "esc back") then
    return result(view, "local_ui_screen", 0.9, "backtrack mode: " .. last,
      { business_state = "idle", input_mode = "modal", ui_context = "backtrack" }, { overlay = "backtrack" })
  end
  return nil
end

-- A numbered list with a highlighted row and no composer: some menu this
-- plugin does not know by name.
local function detect_menu(view)
  local lines = view.lines
  local opts, selected = parse_options(lines, 1, #lines)
  if #opts < 2 or not selected then
    return nil
  end
  local first = #lines
  for i, line in ipairs(lines) do
    if line:match("^[^%w]*%d+%.%s") then
      first = i
      break
    end
  end
  local from = math.max(1, first - 4)
  return result(view, "waiting_for_user_input", 0.6, "selection menu without a composer",
    { business_state = AWAITING, input_mode = "modal", ui_context = "selection_menu", excerpt = excerpt(lines, from, #lines) },
    { options = opts, selected = selected, menu = "unknown" })
end

-- The slash popup: rows "› /model  ..." / "  /fast  ..." just above the
-- composer while the composer's text starts with "/".
local function parse_slash(lines, composer)
  local slash = { query = composer.text:sub(2), suggestions = {} }
  local top = composer.row
  local i = composer.row - 1
  if i >= 1 and blank(lines[i]) then
    i = i - 1
  end
  while i >= 1 do
    local line = lines[i]
    local pr = prompt_rest(line)
    local cmd = (pr and pr:match("^(/%S+)")) or line:match("^  (/%S+)")
    if cmd then
      table.insert(slash.suggestions, 1, cmd)
      if pr then
        slash.selected = cmd
      end
      top = i
    elseif not line:match("^%s%s%s+%S") then
      break
    end
    i = i - 1
  end
  return slash, top
end

-- named gives r the id of the composer rule that made it, when the host
-- asks for an explanation: the composer reads several distinct situations
-- (a running turn by its working line, queued inputs, a typed draft, an
-- empty composer after a completed turn...), each its own rule.
local function named(r, ctx, rule)
  if ctx.explain then
    r.rule = rule
  end
  return r
end

-- unknown_reading is the conservative reading of a composer screen with
-- parts no rule recognises (rows: {row, text}): never ready, never
-- submit-ready. A busy sign in those parts reads as work in progress
-- (thinking when a turn runs, else starting); otherwise the state is
-- unrecognized and the business state unknown.
local function unknown_reading(view, ui, metadata, anomalies, rows, turn)
  local busy = false
  local texts = {}
  for _, u in ipairs(rows) do
    anomalies[#anomalies + 1] = { code = "unrecognized_screen", message = "row " .. u.row .. ": " .. u.text }
    texts[#texts + 1] = u.text
    busy = busy or busy_sign(u.text)
  end
  metadata.unrecognized = rows
  local evidence = "unrecognised row " .. rows[1].row .. ": " .. rows[1].text:sub(1, 60)
  if busy then
    local state = turn.state == "running" and "thinking" or "starting"
    return result(view, state, 0.5, evidence .. " (busy sign)",
      { business_state = "working", input_mode = "freeform", ui_context = ui, anomalies = anomalies }, metadata)
  end
  return result(view, "unrecognized", 0.4, evidence,
    { business_state = "unknown", input_mode = "freeform", ui_context = ui, anomalies = anomalies }, metadata)
end

local function detect_composer(view, ctx)
  local lines = view.lines
  local composer = view.composer
  if not composer then
    return nil
  end
  local status, hint, startup, unknown_footer = parse_footer(composer.footer)
  local empty = PLACEHOLDERS[composer.text] == true
  local metadata = {
    composer = { text = empty and "" or composer.text, empty = empty },
    status = status,
  }
  if hint then
    metadata.hint = hint
  end
  local ui = "normal_prompt"
  local transcript_last = composer.row - 1
  if not empty and starts(composer.text, "/") then
    -- A command being typed: the popup lists matches, or the text is one
    -- /word (a path with more after it is a prompt).
    local slash, top = parse_slash(lines, composer)
    if #slash.suggestions > 0 or composer.text:match("^/[%w%-_]*$") then
      ui = "slash_command"
      metadata.slash = slash
      transcript_last = top - 1
    end
  end
  local working, working_row = parse_working(lines, 1, transcript_last)
  local queued, queued_row = parse_queued(lines, 1, transcript_last)
  if working_row then
    transcript_last = working_row - 1
  end
  if queued_row and queued_row <= transcript_last then
    transcript_last = queued_row - 1
  end
  local turn = turn_analysis(lines, transcript_last, ctx.last_intent)
  if turn.state == "completed" then
    local prompt_row = nil
    for i = turn.end_row, 1, -1 do
      local rest = prompt_rest(lines[i])
      if rest and not rest:match("^%d+%.%s") then
        prompt_row = i
        break
      end
    end
    turn.text = answer_text(lines, prompt_row, turn.end_row)
  end
  turn.end_row = nil
  metadata.turn = turn
  if working then
    metadata.working = working
  end
  if queued then
    metadata.queued = queued
  end

  local anomalies = {}
  if startup then
    return named(result(view, "starting", 0.9, "footer: " .. startup,
      { business_state = "working", input_mode = "freeform", ui_context = ui, anomalies = anomalies }, metadata), ctx, "codex.startup_wait")
  end
  local unknown = {}
  for _, u in ipairs(unknown_footer) do
    unknown[#unknown + 1] = { row = composer.footer_rows[u.index], text = u.text }
  end
  if composer.row > 1 and not blank(lines[composer.row - 1]) then
    -- Codex keeps a blank row above the composer; anything there is a
    -- line no rule placed.
    unknown[#unknown + 1] = { row = composer.row - 1, text = trim(lines[composer.row - 1]) }
  end
  if #unknown > 0 then
    return named(unknown_reading(view, ui, metadata, anomalies, unknown, turn), ctx, "codex.unrecognized")
  end
  if not status.directory and (view.title == nil or view.title == "") then
    -- Codex draws the composer before its session is configured; then it
    -- has set no title and shows no status line. A prompt sent now is
    -- held ("Waiting for startup") and, if the composer is touched
    -- meanwhile, never sent: this is not ready.
    return named(result(view, "starting", 0.8, "composer before the session is configured: no status line, no title",
      { business_state = "working", input_mode = "freeform", ui_context = ui, anomalies = anomalies }, metadata), ctx, "codex.not_configured")
  end
  local signal, rule = nil, nil
  if working then
    signal, rule = "working line: " .. working.line, "codex.working_line"
    if working.waiting_for_network then
      anomalies[#anomalies + 1] = { code = "provider_unreachable", message = working.detail or working.line }
    end
  elseif queued then
    signal, rule = "queued follow-up inputs", "codex.queued_inputs"
  elseif hint == "tab_to_queue" then
    signal, rule = "footer: tab to queue message", "codex.tab_to_queue"
  elseif turn.state == "running" and braille_spinner(view.title) then
    -- The title spins for an MCP server still starting too, on an idle
    -- or finished turn: only with a running turn is it the turn's.
    signal, rule = "title spinner: " .. view.title, "codex.title_spinner"
  elseif turn.state == "running" then
    signal, rule = "turn running: no Worked for or banner after the last prompt", "codex.turn_running"
  end
  if signal then
    local state, conf = "thinking", 0.9
    if ctx.last_intent == "cancelling" then
      state = "cancelling"
    end
    if not working and not queued and hint ~= "tab_to_queue" then
      conf = braille_spinner(view.title) and 0.85 or 0.7
    end
    return named(result(view, state, conf, signal,
      { business_state = "working", input_mode = "freeform", ui_context = ui, anomalies = anomalies }, metadata), ctx, rule)
  end

  local idle = { business_state = "idle", input_mode = "freeform", ui_context = ui, anomalies = anomalies }
  if turn.state == "error" then
    metadata.error = error_info(turn.banner)
    anomalies[#anomalies + 1] = { code = "error_banner", message = turn.banner }
    if empty then
      return named(result(view, "error", 0.9, "error banner: " .. SQUARE .. " " .. turn.banner, idle, metadata), ctx, "codex.error_banner")
    end
  end
  if not empty then
    if ui == "slash_command" then
      return named(result(view, "ready", 0.9, "slash command popup: " .. composer.text, idle, metadata), ctx, "codex.slash_command")
    end
    return named(result(view, "ready", 0.9, "composer has text", idle, metadata), ctx, "codex.composer_draft")
  end
  if hint == "esc_again_to_edit" then
    return named(result(view, "ready", 0.85, "composer idle: esc again to edit previous message", idle, metadata), ctx, "codex.esc_to_edit")
  end
  if turn.state == "completed" then
    return named(result(view, "completed_turn", 0.9, "turn completed: Worked for " .. (turn.worked_for or "?"), idle, metadata), ctx, "codex.turn_completed")
  end
  if turn.state == "interrupted" then
    return named(result(view, "ready", 0.9, "composer idle after an interrupted turn", idle, metadata), ctx, "codex.turn_interrupted")
  end
  return named(result(view, "ready", 0.9, "composer idle: " .. composer.text, idle, metadata), ctx, "codex.composer_idle")
end

-- The question dialog (request_user_input): "Question 1/1 (1
-- unanswered)", the question, numbered options with the highlight "  ›",
-- and the key hint "tab to add notes | enter to submit answer | esc to
-- interrupt" ending the screen.
local function detect_question(view)
  if not has(view.screen, "enter to submit answer") then
    return nil
  end
  local lines = view.lines
  local q = nil
  for i, line in ipairs(lines) do
    if line:match("^  Question %d+/%d+") then
      q = i
    end
  end
  local foot = q and find_line(lines, "enter to submit answer", q)
  if not foot then
    return nil
  end
  if nonblank(lines, foot + 1) then
    return nil
  end
  local question = trim(lines[q + 1] or "")
  -- Rows not highlighted sit two columns further in ("    2. Red") than
  -- those of the other dialogs: align them for parse_options.
  local rows = {}
  for i = q + 1, foot - 1 do
    local line = lines[i]
    if line:match("^    %d+%. ") then
      line = line:sub(3)
    end
    rows[#rows + 1] = line
  end
  local opts, selected = parse_options(rows, 1, #rows)
  if #opts == 0 then
    return nil
  end
  return result(view, "waiting_for_user_input", 0.9, "question dialog: " .. question,
    { business_state = AWAITING, input_mode = "modal", ui_context = "selection_menu", excerpt = excerpt(lines, q, foot) },
    { options = opts, selected = selected, menu = "question", question = { text = question, progress = trim(lines[q]) } })
end

-- The resume picker (codex resume): "Resume a previous session" on top,
-- sessions listed with the highlight "  ›", and the key hint row "enter
-- resume   ^a archive   esc new ..." at the bottom.
local function detect_resume(view)
  local lines = view.lines
  if not (lines[1] and trim(lines[1]) == "Resume a previous session") then
    return nil
  end
  local hint = nil
  for i = #lines, 1, -1 do
    if starts(trim(lines[i]), "enter resume") then
      hint = i
      break
    end
  end
  if not hint then
    return nil
  end
  local opts, selected = {}, nil
  local from = (find_line(lines, "Type to search") or 2) + 1
  for i = from, hint - 1 do
    local line = lines[i]
    if line:match("^%s*\226\148\128") then
      break -- the rule above the hints
    end
    if not blank(line) then
      local body = trim(line)
      local pr = prompt_rest(body)
      opts[#opts + 1] = { index = #opts + 1, label = trim(pr or body), selected = pr ~= nil }
      if pr then
        selected = #opts
      end
    end
  end
  return result(view, "waiting_for_user_input", 0.9, "resume picker: " .. #opts .. " session(s)",
    { business_state = AWAITING, input_mode = "modal", ui_context = "selection_menu", excerpt = excerpt(lines, 1, #lines) },
    { options = opts, selected = selected, menu = "resume" })
end

-- A fatal error Codex exits with after start-up ("Error: Failed to start a
-- fresh session ..."), with the prompt it could not send ("Unsent
-- draft:") above it: the session is gone and the draft with it.
local function detect_fatal(view)
  local lines = view.lines
  local e = nil
  for i, line in ipairs(lines) do
    if starts(line, "Error: ") then
      e = i
      break
    end
  end
  if not e then
    return nil
  end
  -- The message wraps mid-word at the screen's edge: join the rows as
  -- they are.
  local _, e_end = block(lines, e, e)
  local message = lines[e]:sub(8) .. table.concat(lines, "", e + 1, e_end)
  local metadata = { error = { kind = "fatal", message = message } }
  local d = find_line(lines, "Unsent draft:", 1, e)
  if d and lines[d] == "Unsent draft:" then
    metadata.unsent_draft = table.concat(lines, "\n", block(lines, d + 1, d + 1))
  end
  return result(view, "error", 0.85, "fatal error, Codex exited: " .. message:sub(1, 80),
    { availability = "disconnected", business_state = "unknown", input_mode = "closed", ui_context = "unknown",
      anomalies = { { code = "error_banner", message = message } } }, metadata)
end

-- An approval Codex announces in the title but this plugin cannot read on
-- screen (a dialog of a kind it does not know).
local function detect_title_approval(view)
  if view.title and has(view.title, "Action Required") then
    return result(view, "waiting_for_permission", 0.6, "title: " .. view.title,
      { business_state = AWAITING, input_mode = "modal", ui_context = "approval_prompt", excerpt = excerpt(view.lines, 1, #view.lines) },
      { approval = { kind = "unknown" } })
  end
  return nil
end

-- Each detector is a rule with a stable id, reported as the result's
-- rule (adapter.explain names it; the fixtures' expected files check it).
-- A rule marked live_edge reads a dialog Codex draws in place of the
-- composer (its bottom pane) or as the whole screen: it never fires while
-- the composer is at the bottom, so a dialog's text quoted in an answer
-- above the composer stays part of the answer.
local DETECTORS = {
  { "codex.exited", detect_exited, live_edge = true }, { "codex.login", detect_login, live_edge = true },
  { "codex.trust", detect_trust, live_edge = true }, { "codex.migration", detect_migration, live_edge = true },
  { "codex.agent_center", detect_agent_center }, { "codex.approval", detect_approval, live_edge = true },
  { "codex.picker", detect_picker, live_edge = true }, { "codex.overlay", detect_overlay },
  { "codex.question", detect_question, live_edge = true }, { "codex.resume", detect_resume, live_edge = true },
  { "codex.composer", detect_composer }, { "codex.fatal", detect_fatal, live_edge = true },
  { "codex.title_approval", detect_title_approval, live_edge = true },
  { "codex.menu", detect_menu, live_edge = true },
}

-- Dialog instances (ptywright.dialog.instances): the id adds to the key a
-- count that moves on for a dialog with another key, or any dialog after
-- the composer was seen (the previous one was answered).
local dialog_ids = ptywright.dialog.instances()

local function number_dialog(r, composer)
  local d = r.metadata and r.metadata.dialog
  local id = dialog_ids(d and d.key, composer and true or false)
  if d then
    d.id, d.key = id, nil
    r.metadata.dialog_id = id
  end
end

function M.classify(ctx)
  local screen = ctx.screen or ""
  local view = { screen = screen, lines = split_lines(screen), title = ctx.title }
  if has(screen, ">_ OpenAI Codex (v") then
    view.version = screen:match(">_ OpenAI Codex %(v([%w%.%-]+)%)")
  end
  if view.version then
    memo.version = view.version
  else
    view.version = memo.version
  end
  -- Only when the host asks for an explanation (ctx.explain): the rule
  -- that fired and the rules tried before it, so a plain classify costs
  -- nothing for them.
  local considered = ctx.explain and {} or nil
  -- Found once: the live-edge rules and the composer rule both need it.
  view.composer = find_composer(view.lines)
  for _, rule in ipairs(DETECTORS) do
    local r = nil
    if not (rule.live_edge and view.composer) then
      r = rule[2](view, ctx)
    end
    if r then
      number_dialog(r, view.composer)
      if r.state == "thinking" and not has(screen, "esc to interrupt") then
        r.input_settle_ms = WORKING_ROW_WAIT_MS
      end
      if considered then
        r.rule = r.rule or rule[1]
        r.considered = considered
      end
      return r
    end
    if considered then
      considered[#considered + 1] = { rule = rule[1], reason = "did not match" }
    end
  end
  local a = { availability = "unknown", business_state = "unknown", input_mode = "closed", ui_context = "unknown" }
  local r
  if blank(screen) then
    r = result(view, "starting", 0.5, "blank screen", a)
    r.rule = considered and "codex.blank"
  else
    local k = nonblank(view.lines)
    local first = k and trim(view.lines[k]) or ""
    r = result(view, "starting", 0.2, "nothing recognised: " .. first:sub(1, 60), a)
    r.rule = considered and "codex.unrecognised"
  end
  r.considered = considered
  return r
end

-- The projection: the transcript without Codex's chrome (banner, logo,
-- composer, footer, working line, queued inputs, key hints).

local HINT_LINES = {
  "^  Press enter to confirm or esc to cancel", "^  enter select", "^  enter default", "^  enter continue",
  "^  enter/esc confirm", "^  %? / esc close", "^  k keep & next", "^  Press enter to continue", "^  Press enter to save",
  "^  Press esc to", "^  %? help  ",
}

local function is_logo(line)
  local rest = line:gsub("\226[\160-\163][\128-\191]", ""):gsub("%s", "")
  return rest == "" and not blank(line)
end

function M.project(ctx)
  local lines = split_lines(ctx.screen or "")
  local keep = {}
  for i = 1, #lines do
    keep[i] = true
  end
  local composer = find_composer(lines)
  local last = #lines
  if composer then
    last = composer.row - 1
    if starts(composer.text, "/") then
      local _, top = parse_slash(lines, composer)
      last = top - 1
    end
  end
  local _, working_row = parse_working(lines, 1, last)
  if working_row then
    keep[working_row] = false
    if lines[working_row + 1] and lines[working_row + 1]:match("^%s+\226\148\148 ") then
      keep[working_row + 1] = false
    end
  end
  local queued, queued_row = parse_queued(lines, 1, last)
  if queued_row then
    local _, queued_end = block(lines, queued_row, queued_row, last)
    for j = queued_row, queued_end do
      keep[j] = false
    end
  end
  local out = {}
  for i = 1, last do
    local line = lines[i]
    local drop = not keep[i] or is_logo(line) or line:match(">_ OpenAI Codex %(v")
    if not drop and i > 1 and lines[i - 1]:match(">_ OpenAI Codex %(v") and line:match("^%s+[~/]") then
      drop = true
    end
    if not drop and i == 1 and line:match("^%s+[~/]%S*$") then
      drop = true -- the banner's directory line, the banner itself scrolled away
    end
    for _, p in ipairs(HINT_LINES) do
      if not drop and line:match(p) then
        drop = true
      end
    end
    if not drop then
      out[#out + 1] = line
    end
  end
  local text = table.concat(out, "\n"):gsub("\n[ \t]*\n[%s]*\n", "\n\n")
  return { dialog_text = trim(text), projector_id = "codex.v1" }
end

-- Intents.

-- Keys the host's key table has no name for, sent as their bytes.
-- ctrl_j is the composer's newline (Enter submits).
local RAW_KEYS = { ctrl_j = "\n", newline = "\n", shift_enter = "\n" }

-- key_actions sends a named key (action.key_name folds the usual names)
-- or, for anything else, types the string as it is.
local function key_actions(name)
  local k, folded = action.key_name(name)
  if RAW_KEYS[folded] then
    return { action.text(RAW_KEYS[folded]) }
  end
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
-- "y", Enter or digit could answer the next dialog.
local LEAVE = { leave = true }
local CHANGED = { changed = true }
local BUSY_ROW = "esc to interrupt"

-- expect_submitted: a turn is running, or the prompt's first line is in
-- the history while the composer shows its placeholder again.
local function expect_submitted(prompt)
  local first = first_line(prompt, 40)
  local branches = { matcher.contains_text(BUSY_ROW) }
  if first ~= "" then
    branches[#branches + 1] = matcher.all({
      matcher.contains_text(PROMPT .. " " .. first),
      matcher.screen_regex("(?m)^" .. PROMPT .. " Ask Codex to do anything"),
    })
  end
  return { matcher = matcher.any(branches) }
end

local EXPECT_CANCELLED = { matcher = matcher.none({ matcher.contains_text(BUSY_ROW) }), within_ms = 3000 }

-- The states whose composer takes a prompt. send_prompt's keys wait for
-- one of them (the host's await): never into the start-up wait, whose
-- Enter Codex ignores, nor into a screen the plugin does not know.
local PROMPT_STATES = { "ready", "completed_turn", "error" }

-- send_prompt pastes the prompt, then presses Enter: typed text followed
-- at once by Enter is taken as a paste burst and the Enter becomes a
-- newline, while a bracketed paste + Enter always submits. It refuses a
-- composer that already holds text: the paste would append to it and
-- Codex would get both as one prompt.
function M.send_prompt(params)
  local prompt = prompt_of(params, "send_prompt")
  local at_prompt = false
  for _, s in ipairs(PROMPT_STATES) do
    at_prompt = at_prompt or memo.state == s
  end
  if at_prompt and memo.composer_empty == false and memo.composer_text then
    ptywright.refuse("send_prompt: the composer still holds text (" .. string.format("%q", memo.composer_text:sub(1, 80)) ..
      "); clear it first (key ctrl_u on each line) or send it as it is with key enter")
  end
  -- retry: Enter again submits a prompt still in the composer and does
  -- nothing on an empty one, so it is safe when the first Enter was lost.
  return { actions = { action.bracketed_paste(prompt), action.key("enter") }, last_intent = "prompt_submitted",
    expect = expect_submitted(prompt), retry = { action.key("enter") }, await = { states = PROMPT_STATES } }
end

-- steer sends text into a running turn: Codex aborts the request in flight
-- and sends a new one with the text appended.
-- The states whose composer takes typed text, a running turn's included:
-- steer's and queue's keys wait for one, never into a screen the plugin
-- does not know or a dialog.
local TYPING_AWAIT = { states = { "thinking", "cancelling", "ready", "completed_turn", "error" }, within_ms = 3000 }

function M.steer(params)
  local prompt = prompt_of(params, "steer")
  return { actions = { action.bracketed_paste(prompt), action.key("enter") }, expect = CHANGED, await = TYPING_AWAIT }
end

-- queue adds a follow-up that Codex sends once the running turn completes.
function M.queue(params)
  local prompt = prompt_of(params, "queue")
  return { actions = { action.bracketed_paste(prompt), action.key("tab") }, expect = CHANGED, await = TYPING_AWAIT }
end

-- answer names, for the host's check at the moment of the key, the
-- approval dialog a plan answers and the option its keys choose (the
-- highlighted one when the keys act on the highlight): nil off a dialog
-- the plugin reports.
local function answer(opt, highlighted)
  local d = memo.dialog
  if not (d and d.id) then
    return nil
  end
  return { dialog_id = d.id, index = opt and opt.index or nil, label = opt and opt.label or nil, highlighted = highlighted }
end

-- option_with_key returns the approval option Codex names with one of
-- keys ("y", "p"...), in the order of keys.
local function option_with_key(...)
  for _, k in ipairs({ ... }) do
    for _, o in ipairs(memo.options or {}) do
      if o.key == k then
        return o
      end
    end
  end
  return nil
end

-- approve picks the option Codex keys "y" ("Yes, proceed", "Yes, grant
-- these permissions for this turn") by its key.
function M.approve(_params)
  require_state("approve", { "waiting_for_permission", "waiting_for_trust" })
  if memo.state == "waiting_for_trust" then
    return M.approve_trust({})
  end
  local opt = option_with_key("y")
  if memo.dialog and not opt then
    ptywright.refuse("approve: the approval dialog has no \"(y)\" option")
  end
  return { actions = { action.text("y") }, expect = LEAVE, answer = answer(opt) }
end

-- approve_always picks the option that approves more than this once:
-- "(p)" on a command (a prefix rule), "(a)" on edits and permissions (the
-- files, the session).
function M.approve_always(_params)
  require_state("approve_always", { "waiting_for_permission" })
  local opt = option_with_key("p", "a")
  if not opt then
    ptywright.refuse("approve_always: the approval dialog has no \"(p)\" or \"(a)\" option")
  end
  return { actions = { action.text(opt.key) }, expect = LEAVE, answer = answer(opt) }
end

-- deny: Esc. On an approval dialog this ends the whole turn (Codex has no
-- "deny but go on"); on the trust prompt it opens the agent center; on a
-- picker it goes back.
function M.deny(_params)
  require_state("deny", { "waiting_for_permission", "waiting_for_trust", "waiting_for_model_select", "waiting_for_user_input" })
  return { actions = { action.key("escape") }, expect = LEAVE, answer = answer(option_with_key("esc")) }
end

-- moves_then_enter walks the highlight from the selected row to index.
local function moves_then_enter(index)
  if not memo.selected then
    ptywright.refuse("choose_option: no highlighted option on screen to move from")
  end
  return action.select(memo.selected, index)
end

local DIGIT_STATES = { waiting_for_permission = true, waiting_for_model_select = true, waiting_for_user_input = true }
-- Menus of those states where a digit does not pick: the highlight is
-- moved and Enter pressed (the question dialog was answered that way; the
-- resume picker lists no numbers).
local NO_DIGITS = { model_migration = true, question = true, resume = true }

-- choose_option picks option {index = n} or {option = "n" | "label"}. In
-- the approval dialog and the pickers a digit acts at once (no Enter); on
-- the trust prompt, the sign-in lists and the migration prompt digits do
-- nothing, so the highlight is moved and Enter pressed.
function M.choose_option(params)
  local index = tonumber(params.index) or tonumber(params.option)
  local opts = memo.options or {}
  if not index then
    local want = params.option
    if type(params.label) == "string" then
      want = params.label
    end
    if type(want) ~= "string" or want == "" then
      ptywright.invalid_params("choose_option: params.index (number), params.label or params.option (number or label) is required")
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
      ptywright.invalid_params("choose_option: " .. (#found == 0 and "no option" or "more than one option") .. " matches \"" .. want .. "\"")
    end
    index = found[1].index
  end
  if #opts > 0 then
    local ok = false
    for _, o in ipairs(opts) do
      ok = ok or o.index == index
    end
    if not ok then
      ptywright.invalid_params("choose_option: no option " .. index .. " on screen")
    end
  end
  local chosen = nil
  for _, o in ipairs(opts) do
    if o.index == index then
      chosen = o
    end
  end
  if DIGIT_STATES[memo.state] and NO_DIGITS[memo.menu] == nil and index >= 1 and index <= 9 then
    return { actions = { action.text(tostring(index)) }, expect = LEAVE, answer = answer(chosen) }
  end
  return { actions = moves_then_enter(index), expect = LEAVE, answer = answer(chosen, memo.selected) }
end

-- cancel interrupts a running turn with Esc. It refuses when no turn runs:
-- Esc on an idle prompt arms "esc again to edit previous message" and a
-- second one enters backtrack mode (send key escape to do that on purpose).
function M.cancel(_params)
  require_state("cancel", { "thinking", "cancelling" })
  return { actions = { action.key("escape") }, last_intent = "cancelling", expect = EXPECT_CANCELLED }
end

function M.key(params)
  return { actions = key_actions(need_string(params, "key", "key")), expect = CHANGED }
end

-- slash_command runs /command without marking a conversation turn.
function M.slash_command(params)
  local command = params.command or params.name
  if type(command) ~= "string" or command == "" then
    ptywright.invalid_params("slash_command: params.command: want a non-empty string")
  end
  if not starts(command, "/") then
    command = "/" .. command
  end
  return { actions = { action.bracketed_paste(command), action.key("enter") }, last_intent = "slash_command", expect = CHANGED }
end

function M.approve_trust(_params)
  require_state("approve_trust", { "waiting_for_trust" })
  if memo.selected and memo.selected ~= 1 then
    return { actions = moves_then_enter(1), expect = LEAVE }
  end
  return { actions = { action.key("enter") }, expect = LEAVE }
end

function M.deny_trust(_params)
  require_state("deny_trust", { "waiting_for_trust" })
  return { actions = { action.key("escape") }, expect = LEAVE }
end

-- dismiss_model_migration keeps the configured model (option 2); Enter on
-- the default option would rewrite the model in config.toml.
function M.dismiss_model_migration(_params)
  if memo.menu ~= "model_migration" then
    ptywright.refuse("dismiss_model_migration: no model migration prompt on screen (state " .. tostring(memo.state) .. ")")
  end
  return { actions = moves_then_enter(2), expect = LEAVE }
end

-- quit exits Codex: Ctrl+C on an empty composer ends it at once.
function M.quit(_params)
  require_state("quit", { "ready", "completed_turn", "error" })
  if not memo.composer_empty then
    ptywright.refuse("quit: the composer holds text (Ctrl+C would only clear it)")
  end
  return { actions = { action.key("ctrl_c") }, last_intent = "", expect = { matcher = matcher.process_exited() } }
end

-- Wait matchers. Regexes are Go RE2 over the screen's plain text.

-- A turn has ended when "Worked for" or a ■ banner is followed only by
-- blank rows and then the composer with at most its footer below it (a
-- past prompt "› ..." is followed by more rows than that).
local TURN_END = "(?m)^(?:  Worked for .*|" .. SQUARE .. " .*(?:\\n.+)*)\\n(?:[ \\t]*\\n)*" .. PROMPT .. " .*(?:\\n.*){0,4}\\z"
local APPROVAL_QUESTION = "(?m)^  Would you like to .*\\?$"
local APPROVAL_FOOT = "Press enter to confirm or esc to cancel"
local READY = "(?m)^" .. PROMPT .. " Ask Codex to do anything(?:\\n.*){0,3}\\z"

local function stable_ms(params, default)
  local v = tonumber(params.stable_ms) or tonumber(params.completed_turn_stable_ms) or default
  return math.max(0, math.floor(v))
end

-- The dialog's key hint ends the screen: the same words quoted in an
-- answer have the composer below them.
local APPROVAL_FOOT_AT_EDGE = APPROVAL_FOOT .. "[ \\t\\n]*\\z"

local function approval_matcher()
  return matcher.all({ matcher.screen_regex(APPROVAL_QUESTION), matcher.screen_regex(APPROVAL_FOOT_AT_EDGE) })
end

-- wait_turn_matcher: the turn ended (Worked for / ■ banner above the
-- composer) or Codex asks for approval, and the screen has been still for
-- completed_turn_stable_ms (or stable_ms).
function M.wait_turn_matcher(params)
  return matcher.all({
    matcher.any({ matcher.screen_regex(TURN_END), approval_matcher() }),
    matcher.screen_stable(stable_ms(params, 300)),
  })
end

-- wait_approval_matcher: an approval dialog, still for stable_ms (default
-- 200): keys that land within ~10 ms of the dialog's first paint are lost.
function M.wait_approval_matcher(params)
  return matcher.all({ approval_matcher(), matcher.screen_stable(tonumber(params.stable_ms) or 200) })
end

-- CONFIGURED: a footer line that Codex draws only once its session is
-- configured (the status line, or the agents hint); before that the
-- composer shows "? for shortcuts" alone and a prompt is held.
local CONFIGURED = "(?m)^  .*(?: \194\183 [~/]|\226\134\144 for agents).*(?:\\n.*){0,2}\\z"

-- wait_ready_matcher: the empty composer of a configured session, still
-- for stable_ms (default 500).
function M.wait_ready_matcher(params)
  return matcher.all({ matcher.screen_regex(READY), matcher.screen_regex(CONFIGURED),
    matcher.screen_stable(tonumber(params.stable_ms) or 500) })
end

local function intent(name, description, schema)
  return { name = name, description = description, params_schema = schema or { type = "object", properties = {} } }
end

local PROMPT_SCHEMA = { type = "object", required = { "prompt" }, properties = { prompt = { type = "string", minLength = 1 } } }
-- The params every answer takes, checked by the host at the moment of the
-- key: the dialog the caller saw (metadata.dialog.id) and the option it
-- means; a mismatch is -32008 dialog_mismatch and nothing is pressed.
local ANSWER_SCHEMA = { type = "object", properties = { dialog_id = { type = "string" }, label = { type = "string" },
  index = { type = "integer", minimum = 1 } } }
local STABLE_SCHEMA = { type = "object", properties = { stable_ms = { type = "integer", minimum = 0 } } }

function M.describe()
  return {
    intents = {
      intent("send_prompt", "Bracketed-pastes the prompt and presses Enter; sets last_intent prompt_submitted (anchors a lifecycle turn). The keys wait for a composer the plugin knows is ready (ready, completed_turn or error; receipt not_sent when none comes); refused (-32006) when the composer still holds text.", PROMPT_SCHEMA),
      intent("steer", "Sends text into the running turn (paste + Enter): Codex restarts the request with it.", PROMPT_SCHEMA),
      intent("queue", "Queues a follow-up (paste + Tab) that Codex sends when the running turn completes.", PROMPT_SCHEMA),
      intent("approve", "Approves once: y in an approval dialog (its \"(y)\" option), Enter on the trust prompt. On an approval dialog the host checks, at the moment of the key, that the dialog and the option are the ones the plan was made on (and the caller's dialog_id, label, index).", ANSWER_SCHEMA),
      intent("approve_always", "Approves more than once: the \"(p)\" option of a command (a rule for commands with this prefix), else the \"(a)\" one (these files, this session); label-checked like approve.", ANSWER_SCHEMA),
      intent("deny", "Esc: in an approval dialog this is its \"(esc)\" option, cancels the command and ends the whole turn (label-checked like approve); on the trust prompt it opens the agent center; on a picker it goes back.", ANSWER_SCHEMA),
      intent("choose_option", "Picks a numbered option: a digit where digits act at once (approval, pickers; no Enter), otherwise arrows then Enter (trust, sign-in, migration). On an approval dialog, label-checked like approve.",
        { type = "object", properties = { index = { type = "integer", minimum = 1 }, option = { type = { "string", "integer" } }, label = { type = "string" },
          dialog_id = { type = "string" } } }),
      intent("cancel", "Esc while a turn runs; sets last_intent cancelling. Refused when idle (Esc there arms backtrack mode).") ,
      intent("key", "Sends a named key (KEY_ALIASES: esc, return, pgup, ctrl+c, ^c, shift-tab...; ctrl_j/newline inserts a newline) or types the string.",
        { type = "object", required = { "key" }, properties = { key = { type = "string", minLength = 1 } } }),
      intent("slash_command", "Pastes /command and presses Enter without marking a turn (last_intent slash_command).",
        { type = "object", properties = { command = { type = "string", minLength = 1 }, name = { type = "string", minLength = 1 } } }),
      intent("approve_trust", "Trusts the folder (Enter on option 1)."),
      intent("deny_trust", "Esc on the trust prompt (opens the agent center; n there returns)."),
      intent("dismiss_model_migration", "Keeps the configured model on the model migration prompt (Down, Enter)."),
      intent("quit", "Ctrl+C on an empty idle composer: Codex exits at once."),
    },
    wait_matchers = {
      { name = "wait_turn_matcher", description = "The turn ended (Worked for or a ■ banner right above the composer) or an approval dialog is up, and the screen is still for completed_turn_stable_ms.",
        params_schema = { type = "object", properties = { completed_turn_stable_ms = { type = "integer", minimum = 0 }, stable_ms = { type = "integer", minimum = 0 } } } },
      { name = "wait_approval_matcher", description = "An approval dialog is up and still for stable_ms (default 200; keys sent sooner can be lost).", params_schema = STABLE_SCHEMA },
      { name = "wait_ready_matcher", description = "The empty composer of a configured session (its status line or agents hint drawn) is up and still for stable_ms (default 500).", params_schema = STABLE_SCHEMA },
    },
    states = STATES,
    ui_contexts = { "normal_prompt", "slash_command", "selection_menu", "approval_prompt", "login", "login_api_key", "trust_prompt",
      "model_migration", "shortcuts_overlay", "warnings_overlay", "agent_center", "backtrack", "unknown" },
    parser = { provider_id = PROVIDER_ID, parser_preset_id = PRESET_ID, parser_preset_version = PRESET_VERSION, version_floor = VERSION_FLOOR },
  }
end

return M
