package luapattern_test

import (
	"fmt"

	lua "ptywright/internal/golua"
	"ptywright/internal/luapattern"
)

func ExampleFind() {
	start, end, caps, ok, err := luapattern.Find("esc to interrupt · 12345 tokens", "(%d+) tokens", 1)
	fmt.Println(start, end, caps, ok, err)
	// Output: 21 32 [12345] true <nil>
}

func ExampleMatch() {
	caps, _, _ := luapattern.Match("key = value", "^(%w+)%s*=%s*()", 1)
	fmt.Println(caps[0].Text, caps[1].Pos, caps[1].IsPosition())
	// Output: key 7 true
}

func ExampleGMatch() {
	it := luapattern.GMatch("a=1, b=2", "(%w+)=(%w+)")
	for {
		caps, ok, err := it.Next()
		if err != nil || !ok {
			break
		}
		fmt.Println(caps[0], caps[1])
	}
	// Output:
	// a 1
	// b 2
}

func ExampleGsub() {
	out, n, err := luapattern.Gsub("hello world", "(%w+)", "<%1>", -1)
	fmt.Println(out, n, err)
	// Output: <hello> <world> 2 <nil>
}

func ExampleInstall() {
	l := lua.NewState()
	lua.OpenLibraries(l)
	if err := luapattern.Install(l); err != nil {
		panic(err)
	}
	err := lua.DoString(l, `result = ("12345 tokens"):gsub("%d+", function(n) return n * 2 end)`)
	l.Global("result")
	result, _ := l.ToString(-1)
	fmt.Println(result, err)
	// Output: 24690 tokens <nil>
}
