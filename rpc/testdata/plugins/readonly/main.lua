-- The readonly test plugin: without input.write and matcher.wait the host
-- gives it neither ptywright.action nor ptywright.matcher; it only
-- classifies.

local M = {}

function M.classify(ctx)
  return { state = "watching", confidence = 1.0, evidence = "read-only" }
end

return M
