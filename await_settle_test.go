package ptywright_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/manifest"
)

// flipLua reads a program that shows READY, then BUSY, then READY again:
// its READY takes keys only once it has been still for 800 ms, and "send"
// awaits READY.
const flipLua = `
local M = {}
local action = ptywright.action
function M.classify(ctx)
  local a = { availability = "supported", business_state = "idle", input_mode = "freeform", ui_context = "normal_prompt" }
  local last = ""
  for line in string.gmatch(ctx.screen, "[^\n]+") do
    if string.find(line, "%S") then last = line end
  end
  if string.find(last, "GOT:", 1, true) or string.find(last, "EARLY:", 1, true) then return { state = "done", assessment = a } end
  if last == "READY" then return { state = "ready", assessment = a, input_settle_ms = 800 } end
  a.business_state = "working"
  return { state = "busy", assessment = a }
end
function M.send(p)
  return { actions = { action.text("hello\r") }, expect = { states = { "done" } }, await = { states = { "ready" } } }
end
return M`

// A screen the plan awaits that moves on while the keys wait for it to
// settle (READY, then BUSY before READY's settle time) does not get the
// keys at the end of the hold: the delivery awaits READY again and sends
// there. The program reads what reaches it during BUSY as "EARLY".
func TestKeysNeverGoToAScreenThatLeftTheAwaitedState(t *testing.T) {
	tuitest.NoLeak(t)
	m := manifest.Manifest{Name: "flip", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua",
		Permissions: []manifest.Permission{manifest.PermissionInputWrite, manifest.PermissionScreenRead}}
	script := `printf 'READY\n'; sleep 0.1; printf 'BUSY\n'; if read -t 1 early; then printf 'EARLY:%s\n' "$early"; exit 0; fi; ` +
		`printf 'READY\n'; read line; printf 'GOT:%s\n' "$line"`
	for i := range 2 {
		ext, err := luahost.New(m, []byte(flipLua), luahost.Options{})
		require.NoError(t, err)
		s, err := ptywright.Start(ptywright.Options{Program: "bash", Args: []string{"--norc", "--noprofile", "-c", script}})
		if err != nil {
			_ = ext.Close()
		}
		require.NoError(t, err)
		h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{})
		// Sent the moment READY first shows, as an eager client does.
		waitFor(t, s, ptywright.ScreenRegex(`READY\s*\z`))
		res, err := h.Send(context.Background(), "send", nil)
		require.NoError(t, err)
		rc := res.Receipt
		require.Equal(t, ptywright.EffectConfirmed, rc.Effect, "run %d: %+v", i, rc)
		require.Equal(t, "ready", rc.StateBefore, "run %d", i)
		require.Contains(t, s.Screen().PlainText(), "GOT:hello", "run %d: the keys reached BUSY", i)
		require.NotContains(t, s.Screen().PlainText(), "EARLY:", "run %d", i)
		require.NoError(t, h.Close())
	}
}
