package ptywright

import lua "github.com/Shopify/go-lua"

// MemoryHookForBench removes the memory budget's allocation hook from e's
// state (on false) or puts it back (on true), so BenchmarkClassifyMemoryBudget
// can tell what the budget costs. Only tests see it.
func MemoryHookForBench(e *LuaExtension, on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.rt.l == nil {
		return
	}
	if on {
		e.rt.budget.installMemoryBudget(e.rt.l)
	} else {
		lua.SetAllocHook(e.rt.l, nil)
	}
}
