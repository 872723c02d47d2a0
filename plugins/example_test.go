package plugins_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"ptywright/contract"
	"ptywright/luahost"
	"ptywright/plugins"
)

// The registry loads trusted-local plugins, describes them, hands each
// adapter its own instance, and decides lua matchers.
func ExampleRegistry() {
	reg, err := plugins.New(plugins.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()
	if _, err := reg.Load("../testdata/plugins/echo/manifest.toml"); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	d, err := reg.Describe(ctx, "echo")
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range d.Intents {
		fmt.Println("intent:", e.Name())
	}

	out, err := reg.EvalPredicate(ctx, "echo", "has_text", contract.PredicateInput{
		Screen: "hello\nhello",
		Params: json.RawMessage(`{"text":"hello","lines":2}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("matched:", out.Matched, *out.Capture)
	// Output:
	// intent: send_text
	// intent: interrupt
	// matched: true hello
}

// An inline one-shot script: global functions, pure Lua only.
func ExampleRegistry_CallInline() {
	reg, err := plugins.New(plugins.Options{NoBuiltins: true})
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()
	res, err := reg.CallInline(context.Background(), `function add(a, b) print("adding") return Ok(a + b) end`, "add", json.RawMessage(`[3, 4]`), luahost.HookOptions{})
	if err != nil {
		log.Fatal(err)
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	// Output: {"ok":7,"output":"adding\n"}
}
