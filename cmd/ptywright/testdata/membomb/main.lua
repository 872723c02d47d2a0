-- The membomb test plugin. bomb() is the four lines that took
-- `ptywright serve` down before plugins had a memory budget.

local M = {}

local function bomb()
  local s = 'xxxxxxxx'
  for i = 1, 40 do s = s .. s end
  return #s
end

-- The classifier bombs while the screen shows BOOM followed by CLASSIFY.
function M.classify(ctx)
  if (ctx.body_text or ""):find("BOOM" .. "CLASSIFY", 1, true) then
    bomb()
  end
  return { state = "idle", confidence = 0.5, evidence = "membomb" }
end

function M.send_text(params)
  return { actions = { ptywright.action.text(params.text), ptywright.action.key("enter") } }
end

-- The intent.
function M.explode(params)
  bomb()
  return {}
end

-- The hook.
function M.bomb()
  return bomb()
end

function M.ping()
  return "pong"
end

-- Any session's resize runs the bomb in every membomb instance.
ptywright.on("session:resized", function(ev)
  bomb()
end)

return M
