//go:build unix

package rpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/plugins"
	"ptywright/policyfile"
	"ptywright/ptywrighttest"
)

// askLua is an adapter whose screen asks "ASK: <command>" on its last
// line: a permission dialog in the shape the built-in plugins report, one
// instance per line asked. approve types y, deny n, each naming the
// dialog and option it answers.
const askLua = `
local M = {}
local live = nil
function M.classify(ctx)
  live = nil
  local last = nil
  for line in (ctx.screen or ""):gmatch("[^\n]+") do
    if line:match("%S") then last = line end
  end
  local cmd = last and last:match("^ASK: (.+)$")
  if not cmd then
    return { state = "idle", confidence = 0.9, evidence = "no question" }
  end
  live = { kind = "permission", id = "d-" .. cmd, tool = "shell", command = cmd,
    options = { { index = 1, label = "Yes" }, { index = 2, label = "No" } }, selected_index = 1 }
  return { state = "waiting_for_permission", confidence = 0.9, evidence = "asks " .. cmd, metadata = { dialog = live, dialog_id = live.id } }
end
local function answer(key, index, label)
  if not live then ptywright.refuse("no question") end
  return { actions = { ptywright.action.text(key .. "\n") }, answer = { dialog_id = live.id, index = index, label = label } }
end
function M.approve() return answer("y", 1, "Yes") end
function M.deny() return answer("n", 2, "No") end
function M.wait_turn_matcher(params)
  return ptywright.matcher.contains_text(params.text or "done")
end
return M
`

// TestPolicyOverTheWire: with a server policy and audit log, the host
// answers the dialogs its rules decide (allow touch heldout_*, deny rm *)
// while the client only waits, tells the client adapter:policy_decision
// with the rule ids, leaves a dialog no rule decides to the client, whose
// answer naming another dialog is -32008 with the dialog on screen, and
// writes every answer to the audit log with who decided it.
func TestPolicyOverTheWire(t *testing.T) {
	dir := t.TempDir()
	manifest := "name = \"ask\"\nkind = \"adapter\"\nversion = \"0.1.0\"\nruntime = \"lua\"\nentrypoint = \"main.lua\"\n" +
		`permissions = ["session.spawn", "session.kill", "screen.read", "transcript.read", "input.write", "matcher.wait"]` + "\n" +
		`intents = ["approve", "deny"]` + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "manifest.toml"), []byte(manifest), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.lua"), []byte(askLua), 0o600))
	reg, err := plugins.New(plugins.Options{Logger: testLogger(t)})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, reg.Close()) })
	_, err = reg.Load(filepath.Join(dir, "manifest.toml"))
	require.NoError(t, err)
	policy, err := policyfile.Parse([]byte("[[rule]]\nid = \"allow-heldout\"\ncommand = \"touch heldout_*\"\ndecision = \"allow\"\n" +
		"[[rule]]\nid = \"deny-rm\"\ncommand = \"rm *\"\ndecision = \"deny\"\n"))
	require.NoError(t, err)
	auditPath := filepath.Join(dir, "audit.jsonl")
	audit, err := ptywright.OpenAuditLog(auditPath)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, audit.Close()) })
	c := dialUnix(t, serveUnix(t, newServer(t, Options{Plugins: reg, Logger: testLogger(t), Policy: policy, Audit: audit})), NDJSON)
	c.do("server.set_notifications", map[string]any{"enabled": true, "events": true}, nil)

	script := `printf 'ASK: touch heldout_1\n'; read a; echo "got $a"; ` +
		`printf 'ASK: rm heldout_1\n'; read b; echo "got $b"; ` +
		`printf 'ASK: ls\n'; read c; echo "got $c"; echo done; sleep 30`
	a := c.startAdapter(map[string]any{"plugin": "ask", "program": "/bin/sh", "args": []string{"-c", script}})
	// The policy answers the first two; the third is the client's.
	c.do("session.wait", map[string]any{"session": a.Session, "matcher": containsText("ASK: ls"), "timeout_ms": patience.Milliseconds()}, nil)
	for _, want := range []struct{ rule, decision, command string }{{"allow-heldout", "allow", "touch heldout_1"}, {"deny-rm", "deny", "rm heldout_1"}} {
		ev := c.nextEvent(func(ev eventParams) bool { return ev.Event == "adapter:policy_decision" })
		var pd ptywright.PolicyDecision
		require.NoError(t, json.Unmarshal(ev.Payload, &pd))
		require.Equal(t, want.rule, pd.Rule)
		require.Equal(t, want.decision, pd.Decision)
		require.Equal(t, want.command, pd.Command)
		require.Equal(t, ptywright.EffectUnverified, pd.Effect, "the plugin declares no expectation")
		require.Equal(t, a.Adapter, ev.Adapter)
	}

	_, e := c.call("adapter.send", map[string]any{"adapter": a.Adapter, "intent": "approve", "params": map[string]any{"dialog_id": "d-rm heldout_1"}})
	requireError(t, e, CodeDialogMismatch, `the dialog on screen is "d-ls", not "d-rm heldout_1"`)
	d := errData(t, e)
	require.Equal(t, "waiting_for_permission", d["state"])
	require.Equal(t, "d-ls", d["dialog"].(map[string]any)["id"])
	require.Equal(t, "not_sent", d["receipt"].(map[string]any)["effect"])
	c.do("adapter.send", map[string]any{"adapter": a.Adapter, "intent": "approve", "params": map[string]any{"dialog_id": "d-ls", "label": "Yes"}}, nil)
	c.do("session.wait", map[string]any{"session": a.Session, "matcher": containsText("done"), "timeout_ms": patience.Milliseconds()}, nil)
	var snap struct {
		PlainText string `json:"plain_text"`
	}
	c.do("session.snapshot", map[string]any{"session": a.Session, "cells": false}, &snap)
	require.Contains(t, snap.PlainText, "ASK: touch heldout_1\ny\ngot y\nASK: rm heldout_1\nn\ngot n\nASK: ls\ny\ngot y\ndone")

	var got [][3]string
	for _, r := range ptywrighttest.ReadAudit(t, auditPath) {
		require.Equal(t, "ask", r.Plugin)
		require.Equal(t, a.Adapter, r.Adapter)
		got = append(got, [3]string{r.Intent + " " + r.Command, r.DecidedBy, string(r.Effect)})
	}
	require.Equal(t, [][3]string{
		{"approve touch heldout_1", "rule allow-heldout", "unverified"},
		{"deny rm heldout_1", "rule deny-rm", "unverified"},
		{"approve ls", "connection 1", "not_sent"},
		{"approve ls", "connection 1", "unverified"},
	}, got)
}
