package luahost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"ptywright"
	"ptywright/luahost"
	"ptywright/manifest"
)

// A plugin is a Lua module: classify names the state, each intent returns
// the actions to perform.
func ExampleNew() {
	m := manifest.Manifest{
		Name: "greeter", Kind: manifest.KindAdapter, Version: "1.0.0",
		Runtime: manifest.RuntimeLua, Entrypoint: "main.lua",
		Permissions: []manifest.Permission{manifest.PermissionInputWrite},
	}
	src := `local M = {}
function M.classify(ctx)
  if ctx.body_text:find("Ready>", 1, true) then
    return {state = "ready", confidence = 0.9, evidence = "prompt"}
  end
  return {state = "starting"}
end
function M.send_prompt(params)
  return {
    actions = {ptywright.action.text(params.prompt), ptywright.action.key("enter")},
    last_intent = "prompt_submitted",
  }
end
return M`
	ext, err := luahost.New(m, []byte(src), luahost.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ext.Close()
	ctx := context.Background()

	st, err := ext.Classify(ctx, ptywright.ClassifyContext{BodyText: "Ready> "})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.State, st.Evidence)

	plan, err := ext.Plan(ctx, "send_prompt", json.RawMessage(`{"prompt":"hi"}`))
	if err != nil {
		log.Fatal(err)
	}
	out, _ := json.Marshal(plan)
	fmt.Println(string(out))
	// Output:
	// ready prompt
	// {"actions":[{"type":"text","value":"hi"},{"type":"key","value":"enter"}],"last_intent":"prompt_submitted"}
}
