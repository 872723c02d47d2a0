package lua

// ptywright patch: tests of the memory accounting (memory.go). Run them
// with `go test ./...` in this directory (scripts/test.sh does).

import (
	"fmt"
	"strings"
	"testing"
)

// refusal is what the test hook raises with.
const refusal = "refused by the test hook"

// hooked returns a state whose hook records every growth and refuses
// any single one above refuse bytes.
func hooked(t *testing.T, refuse int) (*State, *[]int) {
	t.Helper()
	l := NewState()
	OpenLibraries(l)
	var seen []int
	SetAllocHook(l, func(l *State, n int) {
		seen = append(seen, n)
		if n > refuse {
			Errorf(l, "%s", fmt.Sprintf("%s: %d bytes", refusal, n))
		}
	})
	return l, &seen
}

func run(t *testing.T, l *State, src string) error {
	t.Helper()
	if err := LoadString(l, src); err != nil {
		t.Fatalf("load: %v", err)
	}
	return l.ProtectedCall(0, 0, 0)
}

func errText(l *State, err error) string {
	if err == nil {
		return ""
	}
	s, _ := l.ToString(-1)
	return s
}

// TestAllocHookRefusesBeforeTheGrowth: every growth site reports before it
// grows, with about the size it will allocate, and a refusal means the
// growth never happened.
func TestAllocHookRefusesBeforeTheGrowth(t *testing.T) {
	tests := []struct {
		name, src string
		check     string // Lua that must hold afterwards (globals survive the error)
	}{
		{"concat", `s = ('x'):rep(1000) s2 = s .. s .. s`, `return s2 == nil`},
		{"concat of numbers", `s = ('x'):rep(2000) .. 12345`, `return s == nil`},
		{"table constructor with sizes", `t = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70}`, `return t == nil`},
		{"array growth", `t = {} for i = 1, 1e6 do t[i] = i end`, `return #t < 1e6 and #t > 0`},
		{"closures", `f = nil local a, b, c, d, e, g, h, i, j, k, m, n, o, p, q, r, s, u, v, w, x, y, z, aa = 1 f = function() return a, b, c, d, e, g, h, i, j, k, m, n, o, p, q, r, s, u, v, w, x, y, z, aa end`, `return f == nil`},
		{"library strings", `s = ('x'):rep(1000)`, `return s == nil`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, seen := hooked(t, 999)
			err := run(t, l, tt.src)
			if err == nil || !strings.Contains(errText(l, err), refusal) {
				t.Fatalf("want the hook's refusal, got %v %q", err, errText(l, err))
			}
			big := 0
			for _, n := range *seen {
				if n > 999 {
					big++
				}
			}
			if big != 1 {
				t.Fatalf("%d growths over the limit reported, want the one refused", big)
			}
			l.SetTop(0)
			if err := run(t, l, "ok = (function() "+tt.check+" end)()"); err != nil {
				t.Fatal(errText(l, err))
			}
			l.Global("ok")
			if !l.ToBoolean(-1) {
				t.Fatalf("after the refusal: %s does not hold", tt.check)
			}
		})
	}
}

// TestAllocHookSeesEveryKind checks the sizes reported for each kind of
// growth, with a hook that refuses nothing.
func TestAllocHookSeesEveryKind(t *testing.T) {
	l, seen := hooked(t, 1<<40)
	sum := func(src string) int {
		*seen = nil
		if err := run(t, l, src); err != nil {
			t.Fatal(errText(l, err))
		}
		n := 0
		for _, s := range *seen {
			n += s
		}
		return n
	}
	if n := sum(`local s = ('x'):rep(1e5) local d = s .. s`); n < 3e5 {
		t.Errorf("rep and concat of 100 kB reported %d bytes, want at least 300000", n)
	}
	if n := sum(`local t = {} for i = 1, 1e4 do t[i] = true end`); n < 1e4*valueBytes {
		t.Errorf("an array of 10000 reported %d bytes", n)
	}
	if n := sum(`local t = {} for i = 1, 1e4 do t['k' .. i] = true end`); n < 1e4*hashEntryBytes {
		t.Errorf("a hash of 10000 reported %d bytes", n)
	}
	if n := sum(`local t = {} for i = 1, 1e3 do t[i] = function() return i end end`); n < 1e3*closureBytes(1) {
		t.Errorf("1000 closures reported %d bytes", n)
	}
}

// TestMemoryInUseCountsLiveValuesOnly: what the state holds counts once,
// garbage does not count, and cycles end.
func TestMemoryInUseCountsLiveValuesOnly(t *testing.T) {
	l := NewState()
	OpenLibraries(l)
	base, _ := MemoryInUse(l)
	if base <= 0 {
		t.Fatalf("a fresh state holds %d bytes", base)
	}
	const mib = 1 << 20
	if err := run(t, l, `big = ('x'):rep(1048576) refs = {} for i = 1, 100 do refs[i] = big end
		cycle = {} cycle.self = cycle cycle.f = function() return cycle end`); err != nil {
		t.Fatal(errText(l, err))
	}
	held, visits := MemoryInUse(l)
	if held-base < mib || held-base > 2*mib {
		t.Fatalf("a 1 MiB string referenced 100 times counted %d bytes, want it once", held-base)
	}
	if visits < 100 {
		t.Fatalf("visits %d: the walk did not see the references", visits)
	}
	if err := run(t, l, `big = nil refs = nil local garbage = ('y'):rep(4194304)`); err != nil {
		t.Fatal(errText(l, err))
	}
	// The garbage string may linger in a stack slot until overwritten,
	// which Go cannot collect either; the 1 MiB string is gone.
	l.SetTop(0)
	if err := run(t, l, `local a, b, c, d, e, f, g, h = 1, 2, 3, 4, 5, 6, 7, 8`); err != nil {
		t.Fatal(errText(l, err))
	}
	after, _ := MemoryInUse(l)
	if after-base > 5*mib {
		t.Fatalf("after dropping them the state still counts %d bytes over its base", after-base)
	}
}
