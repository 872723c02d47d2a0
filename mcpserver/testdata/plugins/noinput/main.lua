-- The noinput test plugin: one state, one intent it is never allowed to
-- send (its manifest lacks input.write).
local M = {}

function M.classify(ctx)
  return { state = "idle", confidence = 1, evidence = "a read-only view" }
end

function M.poke(_params)
  return { actions = { ptywright.action.text("poked") } }
end

return M
