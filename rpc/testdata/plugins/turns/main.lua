-- The turns test plugin: `cat` is always ready for the next prompt, so a
-- submitted prompt's turn completes once its echo settles.

local M = {}

local action = ptywright.action
local matcher = ptywright.matcher

function M.classify(ctx)
  return {
    state = "ready",
    confidence = 1.0,
    evidence = "cat reads every line",
    assessment = {
      availability = "supported",
      business_state = "idle",
      input_mode = "freeform",
      ui_context = "normal_prompt",
    },
  }
end

-- send_prompt types params.prompt and presses Enter, anchoring a turn.
function M.send_prompt(params)
  if type(params.prompt) ~= "string" or params.prompt == "" then
    error("send_prompt: params.prompt must be a non-empty string")
  end
  return {
    actions = { action.text(params.prompt), action.key("enter") },
    last_intent = "prompt_submitted",
  }
end

function M.wait_turn_matcher(params)
  return matcher.screen_stable(params.completed_turn_stable_ms or 300)
end

return M
