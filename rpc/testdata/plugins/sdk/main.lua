-- The sdk test plugin: see manifest.toml.

local M = {}
local action = ptywright.action
local matcher = ptywright.matcher

-- Runs once when the instance shuts down or its program exits; the tests
-- observe it through the event and the log line.
ptywright.on_cleanup(function()
  ptywright.log.info("sdk cleanup ran")
  ptywright.emit("cleaned")
end)

-- Handlers that always fail: their failures are logged, never felt.
ptywright.on("session:created", function() error("handler failed on purpose") end)
ptywright.on("adapter:state_changed", function(p) error("state handler failed on purpose: " .. p.state) end)

function M.classify(ctx)
  local state = "idle"
  if ctx.screen:find("ready", 1, true) then
    state = "ready"
  end
  ptywright.emit("classified", { state = state, sequence = ctx.sequence })
  return { state = state, confidence = 1 }
end

function M.send_text(params)
  return { actions = { action.text(params.text), action.key("enter") } }
end

function M.resize(params)
  return { actions = { action.resize(params.rows, params.cols) } }
end

function M.wait_turn_matcher(params)
  return matcher.contains_text(params.text or "ready")
end

function M.add(a, b) return Ok(a + b) end
function M.fail(msg) return Err(msg) end
function M.raw(x) return { got = x } end
function M.chatty()
  print("working")
  return Ok(true)
end
function M.spin() while true do end end

-- burst emits n events numbered 1..n, each padded to size bytes.
function M.burst(n, size)
  local pad = string.rep("x", size)
  for i = 1, n do
    ptywright.emit("burst", { i = i, pad = pad })
  end
  return n
end

function M.close()
  ptywright.log.info("sdk close ran")
  ptywright.emit("closed")
end

return M
