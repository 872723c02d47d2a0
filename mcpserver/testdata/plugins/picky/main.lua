-- The picky test plugin. "pick" types a digit without Enter: nothing shows,
-- so its expectation (the chosen state) is never met and the receipt says
-- ignored. "choose" types a line cat prints back: confirmed.
local M = {}

local action = ptywright.action
local matcher = ptywright.matcher

function M.classify(ctx)
  if (ctx.screen or ""):find("chosen", 1, true) then
    return { state = "chosen", confidence = 1, evidence = "chosen on screen" }
  end
  return { state = "menu", confidence = 1, evidence = "the menu" }
end

function M.pick(_params)
  return { actions = { action.text("1") }, expect = { states = { "chosen" }, within_ms = 100 } }
end

function M.choose(_params)
  return { actions = { action.text("chosen"), action.key("enter") }, expect = { states = { "chosen" } } }
end

function M.wait_turn_matcher(_params)
  return matcher.contains_text("chosen")
end

return M
