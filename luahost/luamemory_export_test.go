package luahost

// MemoryHookForBench removes the memory budget's allocation hook from e's
// state (on false) or puts it back (on true), so BenchmarkClassifyMemoryBudget
// can tell what the budget costs. Only tests see it.
func MemoryHookForBench(e *Extension, on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rt.SetMemoryHook(on)
}
