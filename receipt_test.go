package ptywright_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/manifest"
)

var (
	menuOnce sync.Once
	menuDir  string
	menuBin  string
	menuErr  error
)

// removeMenu deletes the built menu; TestMain calls it after the tests.
func removeMenu() {
	if menuDir != "" {
		_ = os.RemoveAll(menuDir) // Best effort: a temporary directory.
	}
}

// menuProgram builds testdata/menu once per test binary.
func menuProgram(t testing.TB) string {
	t.Helper()
	menuOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ptywright-menu-")
		if err != nil {
			menuErr = err
			return
		}
		menuDir, menuBin = dir, filepath.Join(dir, "menu")
		out, err := exec.Command("go", "build", "-o", menuBin, "./testdata/menu").CombinedOutput()
		if err != nil {
			menuErr = err
			menuBin = string(out)
		}
	})
	require.NoError(t, menuErr, menuBin)
	return menuBin
}

// menuExtension drives testdata/menu: a menu state that asks settle ms of
// quiet before it takes keys, and a choose intent that expects the menu
// to go.
type menuExtension struct {
	settle int64
	resend bool
	expect *ptywright.Expectation
}

func (e *menuExtension) Manifest() manifest.Manifest {
	return manifest.Manifest{Name: "menu", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
}

func (e *menuExtension) Classify(_ context.Context, cc ptywright.ClassifyContext) (ptywright.StateSnapshot, error) {
	switch {
	case strings.Contains(cc.Screen, "You chose"):
		return ptywright.StateSnapshot{State: "chosen", Confidence: 1}, nil
	case strings.Contains(cc.Screen, "Pick a fruit"):
		return ptywright.StateSnapshot{State: "menu", Confidence: 1, InputSettleMs: e.settle}, nil
	}
	return ptywright.StateSnapshot{State: "starting"}, nil
}

func (e *menuExtension) Plan(_ context.Context, intent string, _ json.RawMessage) (ptywright.ActionPlan, error) {
	exp := e.expect
	if exp == nil {
		exp = &ptywright.Expectation{States: []string{"chosen"}}
	}
	return ptywright.ActionPlan{Actions: []ptywright.Action{ptywright.Text("1")}, Expect: exp, Resend: e.resend}, nil
}

func (e *menuExtension) WaitMatcher(context.Context, string, json.RawMessage) (ptywright.Matcher, error) {
	return ptywright.ContainsText("You chose"), nil
}

func (e *menuExtension) Close() error { return nil }

// startMenu starts the menu (deaf for deafMs) and returns the handle the
// moment the menu is first drawn, as an eager client would act.
func startMenu(t *testing.T, deafMs int, ext *menuExtension, opts ptywright.HandleOptions) *ptywright.ExtensionHandle {
	t.Helper()
	s, err := ptywright.Start(ptywright.Options{Program: menuProgram(t), Args: []string{"-deaf", strconv.Itoa(deafMs)}})
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, ext, opts)
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	waitFor(t, s, ptywright.ContainsText("Pick a fruit"))
	return h
}

// With input readiness, keys sent the moment the menu appears are held
// until it has settled, and the receipt confirms them.
func TestReceiptConfirmedAfterReadiness(t *testing.T) {
	tuitest.NoLeak(t)
	for i := range 5 {
		h := startMenu(t, 300, &menuExtension{settle: 450}, ptywright.HandleOptions{})
		res, err := h.Send(context.Background(), "choose", nil)
		require.NoError(t, err)
		rc := res.Receipt
		require.Equal(t, ptywright.EffectConfirmed, rc.Effect, "run %d: %+v", i, rc)
		require.Equal(t, "chosen", rc.ConfirmedState)
		require.Equal(t, "menu", rc.StateBefore)
		require.Equal(t, 1, rc.Attempts)
		require.Equal(t, 1, rc.Bytes)
		require.GreaterOrEqual(t, rc.HeldMs, int64(300), "the keys were held for the menu to settle")
		require.Equal(t, "chosen", res.State.State)
	}
}

// Without readiness the same keys are dropped, and the receipt says so:
// never a silent success.
func TestReceiptIgnoredWithoutReadiness(t *testing.T) {
	tuitest.NoLeak(t)
	for i := range 3 {
		h := startMenu(t, 1500, &menuExtension{}, ptywright.HandleOptions{ReceiptWindow: 300 * time.Millisecond})
		res, err := h.Send(context.Background(), "choose", nil)
		require.NoError(t, err)
		rc := res.Receipt
		require.Equal(t, ptywright.EffectIgnored, rc.Effect, "run %d: %+v", i, rc)
		require.Contains(t, rc.Reason, "not seen within 300 ms")
		require.Equal(t, "menu", res.State.State)

		// A turn whose send is ignored does not wait for an answer.
		start := time.Now()
		tr, err := h.Turn(context.Background(), "choose", nil, "", nil)
		require.NoError(t, err)
		require.Equal(t, ptywright.EffectIgnored, tr.Receipt.Effect)
		require.Nil(t, tr.Wait)
		require.Less(t, time.Since(start), 5*time.Second)
	}
}

// A plan that is safe to resend is sent once more when the first keys were
// dropped.
func TestReceiptResendsASafePlanOnce(t *testing.T) {
	tuitest.NoLeak(t)
	h := startMenu(t, 200, &menuExtension{resend: true, expect: &ptywright.Expectation{
		Matcher: ptr(ptywright.None(ptywright.ContainsText("Pick a fruit"))),
	}}, ptywright.HandleOptions{ReceiptWindow: 800 * time.Millisecond})
	res, err := h.Send(context.Background(), "choose", nil)
	require.NoError(t, err)
	rc := res.Receipt
	require.Equal(t, ptywright.EffectConfirmed, rc.Effect, "%+v", rc)
	require.Equal(t, 2, rc.Attempts)
	require.Equal(t, 2, rc.Bytes)
	require.Equal(t, ptywright.MatchNone, rc.Evidence.Kind)
}

// The program exiting before the effect is seen is reported as such, not as
// ignored keys.
func TestReceiptWhenTheProgramExits(t *testing.T) {
	tuitest.NoLeak(t)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", `stty -echo -icanon min 1; printf 'Pick a fruit\n'; dd bs=1 count=1 >/dev/null 2>&1; exit 0`}})
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, &menuExtension{}, ptywright.HandleOptions{})
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	waitFor(t, s, ptywright.ContainsText("Pick a fruit"))
	res, err := h.Send(context.Background(), "choose", nil)
	require.NoError(t, err)
	require.Equal(t, ptywright.EffectUnverified, res.Receipt.Effect, "%+v", res.Receipt)
	require.Equal(t, "the program exited before the effect was seen", res.Receipt.Reason)

	res, err = h.Send(context.Background(), "choose", nil)
	require.ErrorIs(t, err, ptywright.ErrProcessExited)
	require.Equal(t, 1, res.Receipt.Attempts)
	require.Equal(t, 0, res.Receipt.Bytes)
}

func ptr[T any](v T) *T { return &v }

// The same menu driven by a Lua plugin: input_settle_ms from classify, and
// an expect table in the plan (a bare matcher, or {states, leave, ...}).
const menuLua = `
local M = {}
local action, matcher = ptywright.action, ptywright.matcher
function M.classify(ctx)
  if string.find(ctx.screen, "You chose", 1, true) then return { state = "chosen" } end
  if string.find(ctx.screen, "Pick a fruit", 1, true) then return { state = "menu", input_settle_ms = 450 } end
  return { state = "starting" }
end
function M.choose(p)
  return { actions = { action.text("1") }, expect = matcher.none({ matcher.contains_text("Pick a fruit") }) }
end
function M.choose_leave(p)
  return { actions = { action.text("2") }, expect = { leave = true, within_ms = 2000 }, resend = false }
end
function M.bad_expect(p)
  return { actions = { action.text("2") }, expect = { within_ms = 10 } }
end
return M`

func TestLuaPluginDeclaresReadinessAndExpectations(t *testing.T) {
	tuitest.NoLeak(t)
	m := manifest.Manifest{Name: "menu", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua",
		Permissions: []manifest.Permission{manifest.PermissionInputWrite, manifest.PermissionMatcherWait, manifest.PermissionScreenRead}}
	for _, intent := range []string{"choose", "choose_leave"} {
		ext, err := luahost.New(m, []byte(menuLua), luahost.Options{})
		require.NoError(t, err)
		s, err := ptywright.Start(ptywright.Options{Program: menuProgram(t), Args: []string{"-deaf", "300"}})
		require.NoError(t, err)
		h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{})
		t.Cleanup(func() { require.NoError(t, h.Close()) })
		waitFor(t, s, ptywright.ContainsText("Pick a fruit"))

		st, err := h.State(context.Background())
		require.NoError(t, err)
		require.Equal(t, int64(450), st.InputSettleMs)
		res, err := h.Send(context.Background(), intent, nil)
		require.NoError(t, err)
		require.Equal(t, ptywright.EffectConfirmed, res.Receipt.Effect, "%s: %+v", intent, res.Receipt)
		require.Equal(t, "chosen", res.State.State)
		raw, err := json.Marshal(res)
		require.NoError(t, err)
		require.Contains(t, string(raw), `"receipt":{"intent":"`+intent+`","effect":"confirmed"`)

		_, err = h.Send(context.Background(), "bad_expect", nil)
		require.ErrorIs(t, err, ptywright.ErrInvalidParams)
		require.ErrorContains(t, err, "expect: needs a matcher, states, leave or changed")
	}
}
