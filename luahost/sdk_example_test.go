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

// A plugin emits events (namespaced by the host), registers cleanups that
// run once when the instance closes, and answers hook calls with Ok/Err.
func ExampleExtension_CallHook() {
	bus := ptywright.NewEventBus(nil)
	defer bus.Subscribe(func(ev ptywright.Event) { fmt.Println("event", ev.Name, string(ev.Payload)) })()

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

// Core events share one payload, CoreEvent.
func ExampleEventBus_EmitCore() {
	bus := ptywright.NewEventBus(nil)
	defer bus.Subscribe(func(ev ptywright.Event) {
		var ce ptywright.CoreEvent
		_ = json.Unmarshal(ev.Payload, &ce)
		fmt.Println(ev.Name, ce.Session, ce.Sequence, ce.State)
	})()
	_ = bus.EmitCore(ptywright.CoreEvent{Event: ptywright.EventAdapterStateChanged, Session: "s1", Adapter: "e1", Sequence: 7, State: "ready"})
	// Output: adapter:state_changed s1 7 ready
}
