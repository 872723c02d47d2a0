package ptywright_test

import (
	"fmt"

	"ptywright"
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
