package ptywright_test

import (
	"fmt"

	"ptywright"
)

func ExampleRedactor() {
	fmt.Println(ptywright.DefaultRedactor().Redact("export API_KEY=abc123; curl -H 'Authorization: Bearer eyJhbGciOi'"))

	policy := ptywright.DefaultRedactionPolicy()
	policy.ExtraLiterals = []string{"hunter2"}
	policy.Replacement = "***"
	r, err := policy.Compile()
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Redact("login hunter2 token: xyz"))
	fmt.Println(r.Spans("login hunter2 token: xyz"))
	// Output:
	// export API_KEY=[REDACTED]; curl -H 'Authorization: Bearer [REDACTED]'
	// login *** token: ***
	// [[6 13] [21 24]]
}
