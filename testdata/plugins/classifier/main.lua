-- A classifier with the shape and cost of a real TUI adapter's: used by
-- BenchmarkClassify. The vocabulary is made up.
local M = {}

local function trim(s)
  return (s:gsub("^%s+", ""):gsub("%s+$", ""))
end

-- options parses a numbered menu ("│ ❯ 1. Yes │", "│   2. No │"): the
-- number may follow box borders and a selection marker.
local function options(body)
  local opts, selected = {}, nil
  for line in body:gmatch("[^\n]+") do
    local prefix, n, label = line:match("^([^%w]-)(%d+)%.%s+(.*)$")
    if n then
      opts[#opts + 1] = { index = tonumber(n), label = (label:gsub("[%s│]+$", "")) }
      if prefix:find("❯", 1, true) or prefix:find(">", 1, true) then
        selected = tonumber(n)
      end
    end
  end
  return opts, selected
end

local function last_line(body)
  local last = ""
  for line in body:gmatch("[^\n]+") do
    if line:find("%S") then
      last = line
    end
  end
  return trim(last)
end

function M.classify(ctx)
  local body = ctx.body_text or ""
  local status = ctx.status_text or ""
  local lbody, lstatus = body:lower(), status:lower()
  local stable = ctx.stable_ms or 0

  if lbody:find("select login method", 1, true) or lbody:find("paste code here", 1, true) then
    return { state = "waiting_for_login", confidence = 0.95, evidence = "login prompt" }
  end
  if lbody:find("do you trust the files in this folder", 1, true) then
    return { state = "waiting_for_trust", confidence = 0.95, evidence = "trust prompt" }
  end
  if lbody:find("select model", 1, true) and lbody:find("%d+%.%s+%a+") then
    return { state = "waiting_for_model_select", confidence = 0.9, evidence = "model menu" }
  end
  local opts, selected = options(body)
  if lbody:find("would you like to proceed", 1, true) and lbody:find("plan", 1, true) then
    return { state = "waiting_for_plan_approval", confidence = 0.9, evidence = "plan approval",
      metadata = { options = opts, selected = selected } }
  end
  if lbody:find("do you want to ([%a ]+)%?") and #opts >= 2 then
    local tool = body:match("│%s+(%u%w*)%(") or "tool"
    return { state = "waiting_for_permission", confidence = 0.95,
      evidence = { prompt = "permission", tool = tool, options = #opts },
      metadata = { options = opts, selected = selected, tool = tool } }
  end
  if lstatus:find("esc to interrupt", 1, true) or lbody:find("esc to interrupt", 1, true) then
    local tokens = status:match("([%d%.,]+k?) tokens")
    return { state = "thinking", confidence = 0.85, evidence = "spinner", metadata = { tokens = tokens } }
  end
  if lbody:find("api error", 1, true) or lbody:find("^%s*error:") then
    return { state = "error", confidence = 0.8, evidence = "error banner" }
  end
  if lbody:find("press enter to continue", 1, true) then
    return { state = "waiting_for_user_input", confidence = 0.7, evidence = "press enter" }
  end
  local last = last_line(body)
  if last:match("^>%s*$") or last:match("^│%s*>%s*") then
    if ctx.last_intent == "prompt_submitted" and stable >= (ctx.completed_turn_stable_ms or 300) then
      return { state = "completed_turn", confidence = 0.8, evidence = "prompt back after a turn" }
    end
    return { state = "ready", confidence = 0.8, evidence = "empty prompt" }
  end
  return { state = "starting", confidence = 0.2, evidence = "nothing recognised: " .. last:sub(1, 40) }
end

return M
