package luahost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"ptywright/events"
	"ptywright/luahost"
	"ptywright/manifest"
)

// A plugin emits events (namespaced by the host), registers cleanups that
// run once when the instance closes, and answers hook calls with Ok/Err.
func ExampleExtension_CallHook() {
	bus := events.New(nil)
	defer bus.Subscribe(func(ev events.Event) { fmt.Println("event", ev.Name, string(ev.Payload)) })()

	m := manifest.Manifest{Name: "greeter", Kind: manifest.KindMacro, Version: "1", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
	ext, err := luahost.New(m, []byte(`local M = {}
ptywright.on_cleanup(function() ptywright.emit("bye") end)
function M.greet(name)
  ptywright.emit("greeted", {name = name})
  if name == "" then return Err("who?") end
  return Ok("hello " .. name)
end
return M`), luahost.Options{Events: bus})
	if err != nil {
		log.Fatal(err)
	}
	for _, args := range []string{`["terminal"]`, `[""]`} {
		res, err := ext.CallHook(context.Background(), "greet", json.RawMessage(args), luahost.HookOptions{})
		if err != nil {
			log.Fatal(err)
		}
		out, _ := json.Marshal(res)
		fmt.Println("result", string(out))
	}
	_ = ext.Close() // runs the cleanup
	// Output:
	// event greeter:greeted {"name":"terminal"}
	// result {"ok":"hello terminal"}
	// event greeter:greeted {"name":""}
	// result {"err":"who?"}
	// event greeter:bye null
}
