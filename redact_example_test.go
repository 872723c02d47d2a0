package ptywright_test

import (
	"context"
	"fmt"
	"time"

	"ptywright"
	"ptywright/luahost"
	"ptywright/manifest"
)

func ExampleRedactor() {
	fmt.Println(ptywright.DefaultRedactor().Redact("export API_KEY=abc123; curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9'"))

	policy := ptywright.DefaultRedactionPolicy()
	policy.ExtraLiterals = []string{"hunter2"}
	policy.Replacement = "***"
	r, err := policy.Compile()
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Redact("login hunter2 token: xyz789"))
	fmt.Println(r.Spans("login hunter2 token: xyz789"))

	// Ordinary text is left alone; raw text is an explicit choice.
	fmt.Println(ptywright.DefaultRedactor().Redact("/etc/passwd: permission denied"))
	fmt.Println(ptywright.NoRedaction().Redact("API_KEY=abc123"))
	// Output:
	// export API_KEY=[REDACTED]; curl -H 'Authorization: Bearer [REDACTED]'
	// login *** token: ***
	// [[6 13] [21 27]]
	// /etc/passwd: permission denied
	// API_KEY=abc123
}

// Give a session its redactor once: its reads, and those of a handle over
// it, hide what the redactor hides with nothing asked of the caller, and
// are raw only where a read names NoRedaction.
func ExampleOptions_redactor() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := ptywright.RedactionPolicy{Enabled: true, ExtraLiterals: []string{"hunter2"}}.Compile()
	if err != nil {
		panic(err)
	}
	s, err := ptywright.Start(ptywright.Options{
		Program:  "/bin/sh",
		Args:     []string{"-c", `printf 'db password is hunter2\n'; sleep 5`},
		Redactor: r,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// A plugin that quotes the screen's first row as its evidence.
	m := manifest.Manifest{Name: "quote", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua,
		Entrypoint: "main.lua", Permissions: manifest.AllPermissions()}
	ext, err := luahost.New(m, []byte(`return { classify = function(ctx)
  return { state = "shown", evidence = string.match(ctx.screen, "[^\n]*") }
end }`), luahost.Options{})
	if err != nil {
		_ = s.Close()
		fmt.Println(err)
		return
	}
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{}) // the session's redactor
	defer h.Close()
	if _, err := s.Wait(ctx, ptywright.ContainsText("password")); err != nil {
		fmt.Println(err)
		return
	}

	st, err := h.State(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Evidence)
	fmt.Println(s.Snapshot(ptywright.SnapshotOptions{}).Lines()[0])
	x, err := h.Explain(ctx, ptywright.ExplainLast(), ptywright.ExplainRedactor(ptywright.NoRedaction()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(x.Evidence)
	// Output:
	// db password is [REDACTED]
	// db password is [REDACTED]
	// db password is hunter2
}
