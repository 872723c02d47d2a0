package luart

// The memory budget of a plugin instance (Limits.Memory).
//
// go-lua leaves memory to the Go runtime: there is no allocator to limit,
// and the instruction budget cannot see memory grow (`s = s .. s` doubles
// a string in a handful of instructions; forty of them ask for a
// terabyte). Watching the Go heap after the fact is too late, since one
// doubling step allocates gigabytes, and it cannot tell one state from
// another. Running plugins in a child process under OS limits would
// contain it, at the price of a process per instance and an IPC round
// trip on every classify call (each of which crosses to Lua many times).
//
// So the host uses a small patch of go-lua kept in the repository
// (internal/golua, a package of this module; the diff and how to
// re-apply it are in internal/golua/PATCHES.md). The
// patch reports, before it happens, every growth a script can cause in
// the interpreter: the .. operator and Concat (with the result's length,
// before the copy), strings pushed by Go functions (every library
// function returning a new string), table constructors, array growth and
// new hash keys, closures. And it measures what a state holds
// (lua.MemoryInUse), walking what is reachable from the registry and the
// stacks. The host keeps an upper bound of the state's live bytes (the
// last measure plus every growth reported since); only when a growth
// would take the bound over the budget does it measure, as a collector
// would, and refuse the growth if the live bytes plus the growth are over
// it. Most growth costs an addition and a comparison; measuring is
// charged to the instruction budget by the values it visits, so a plugin
// living close to its budget pays for the collections it causes.
//
// The host's own functions that build strings in Go check before they
// grow their buffers: string.rep, table.concat, string.format (bounded
// from its arguments before go-lua formats), and the pattern engine's
// gsub (internal/luapattern, through Options.Memory).
//
// A refused growth raises a budget error like the instruction budget's
// (ErrMemory, which is an ErrBudget): pcall cannot swallow
// it, and the instance is replaced after the call, as after a stack
// overflow, which also frees what it held.

import (
	"fmt"
	"math"
	"strings"

	lua "ptywright/internal/golua"
)

// installMemoryBudget makes l report its growth to b.
func (b *luaBudget) installMemoryBudget(l *lua.State) {
	lua.SetAllocHook(l, b.alloc)
}

// alloc is the state's allocation hook: it runs before the state grows by
// about n bytes, and raises the budget error instead when the growth would
// take the state over its memory budget.
func (b *luaBudget) alloc(l *lua.State, n int) {
	b.mem += int64(n)
	if b.mem > b.limits.Memory {
		b.measure(l, n)
	}
}

// Alloc implements luapattern.MemoryBudget.
func (b *luaBudget) Alloc(l *lua.State, n int) { b.alloc(l, n) }

// measureEvery is the fraction of the budget that must have been reported
// since the last measure for the next one to be worth taking.
const measureEvery = 16

// measure replaces the bound with what the state really holds plus the
// pending growth n, and raises if that is over the budget.
//
// A measure visits every live value, so it is paced like a collector's
// cycle: at most one per 1/measureEvery of the budget reported. A state
// whose bound passes the budget sooner after a measure (it holds within
// that much of its budget and keeps allocating) is stopped without
// measuring again: its budget is spent to within 1/measureEvery. Without
// the pacing, a state living near its budget would be walked over and
// over, each walk finding a little less room.
//
// Outside a call (the host setting a state up) nothing can be raised; the
// next call's first growth measures again.
func (b *luaBudget) measure(l *lua.State, n int) {
	if b.ctx == nil || b.tripped != nil {
		// After a trip the call is unwinding; the error handler's own
		// few bytes must not raise again.
		return
	}
	if b.mem-b.measured >= b.limits.Memory/measureEvery {
		live, visits := lua.MemoryInUse(l)
		b.mem = int64(live) + int64(n)
		b.measured = b.mem
		b.charge(l, int64(visits))
		if b.mem <= b.limits.Memory {
			return
		}
	}
	b.tripMemory(l)
}

// tripMemory stops the call for going over the memory budget, when it can.
func (b *luaBudget) tripMemory(l *lua.State) {
	if b.ctx == nil || b.tripped != nil {
		return
	}
	b.trip(l, &budgetTrip{msg: fmt.Sprintf("memory budget exceeded (%s)", formatBytes(b.limits.Memory)), err: ErrMemory})
}

// grow is called before writing n more bytes to sb: when sb must grow it
// reports the buffer it will allocate (at most twice the current one, or
// what is needed).
func (b *luaBudget) grow(l *lua.State, sb *strings.Builder, n int) {
	if need := sb.Len() + n; need > sb.Cap() {
		b.alloc(l, max(need, 2*sb.Cap()))
	}
}

// formatBytes writes a budget in the largest binary unit that divides it.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// formatBudgeted wraps go-lua's string.format: before it formats, the
// result's size is bounded from the format and the arguments and reported
// to the budget, so string.format("%s%s...", big, big, ...) is refused
// before it is built. go-lua caps widths and precisions at two digits, so
// each conversion pads at most 99 bytes; a number takes at most some 330
// digits with %f, 24 bytes otherwise.
func (rt *Runtime) formatBudgeted(format lua.Function) lua.Function {
	return func(l *lua.State) int {
		fs, ok := l.ToString(1)
		if ok {
			quoted := strings.Contains(fs, "%q")
			size := len(fs) + 99*strings.Count(fs, "%")
			for i := 2; i <= l.Top(); i++ {
				switch l.TypeOf(i) {
				case lua.TypeString:
					s, _ := l.ToString(i)
					if quoted {
						size += 4 * len(s) // %q writes a control byte as \ddd
					} else {
						size += len(s)
					}
				case lua.TypeNumber:
					if f, _ := l.ToNumber(i); math.Abs(f) < 1e20 {
						size += 24
					} else {
						size += 330
					}
				default:
					size += 64 // a bool, or a value for %s (tostring: "table: 0x...")
				}
			}
			rt.budget.alloc(l, size)
		}
		return format(l)
	}
}

// SetMemoryHook removes the memory budget's allocation hook from the
// state (on false) or puts it back (on true), so a benchmark can tell what
// the budget costs.
func (rt *Runtime) SetMemoryHook(on bool) {
	if rt.l == nil {
		return
	}
	if on {
		rt.budget.installMemoryBudget(rt.l)
	} else {
		lua.SetAllocHook(rt.l, nil)
	}
}
