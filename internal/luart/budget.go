package luart

import (
	"context"
	"errors"
	"fmt"
	"time"

	lua "ptywright/internal/golua"
)

// Budgets of one plugin call.
const (
	// DefaultInstructions is the instruction budget of one call into
	// a plugin: about 30 ms of go-lua on a modern core, and some hundred
	// times what a realistic classifier needs.
	DefaultInstructions = 5_000_000
	// DefaultTimeout is the wall-clock budget of one call.
	DefaultTimeout = 5 * time.Second
	// MaxStringBytes caps the strings string.rep and table.concat
	// build for a plugin, so one call cannot allocate gigabytes.
	MaxStringBytes = 16 << 20
	// DefaultMemory is the memory budget of one plugin instance
	// (one Lua state): some hundred times what a realistic classifier
	// keeps.
	DefaultMemory = 64 << 20
	// MaxMemory is the most Limits.Memory can grant; larger
	// values are cut to it.
	MaxMemory = 1 << 30
)

// ErrMemory is the ErrBudget of a plugin that went over its
// memory budget (Limits.Memory): errors.Is(err, ErrBudget)
// holds for it too.
var ErrMemory = fmt.Errorf("%w: memory", ErrBudget)

// Limits bound every call the host makes into a plugin (classify, an
// intent, a wait matcher, a predicate, describe, and the chunk itself when
// it loads), and the memory its state holds. A call over any budget fails
// with an error wrapping ErrBudget; the plugin cannot catch it with
// pcall.
type Limits struct {
	// Instructions is the Lua VM instruction budget; 0 means
	// DefaultInstructions. Work done inside host functions
	// (pattern matching, regular expressions, JSON, building long strings)
	// is charged too, in instruction-sized units.
	Instructions int64
	// Timeout is the wall-clock budget; 0 means DefaultTimeout. A
	// deadline on the call's context also stops it.
	Timeout time.Duration
	// Memory is the budget, in bytes, of what one plugin instance's Lua
	// state may hold at any time: its strings, tables, closures, code and
	// stack, module-level values included. 0 means DefaultMemory;
	// more than MaxMemory means MaxMemory. It is checked
	// before memory is allocated, wherever a script can make it grow (see
	// memory.go), so a doubling string stops at the budget, not after
	// the process ran out of memory. A call that would go over it fails
	// with ErrMemory and the instance is replaced by a fresh one, as
	// after a stack overflow.
	Memory int64
}

// WithDefaults fills zero fields with the defaults and caps Memory at
// MaxMemory.
func (p Limits) WithDefaults() Limits {
	if p.Instructions <= 0 {
		p.Instructions = DefaultInstructions
	}
	if p.Timeout <= 0 {
		p.Timeout = DefaultTimeout
	}
	if p.Memory <= 0 {
		p.Memory = DefaultMemory
	}
	p.Memory = min(p.Memory, MaxMemory)
	return p
}

const (
	// hookInterval is how many VM instructions run between two looks at
	// the budget: the count hook costs a Go call, so it does not run on
	// every instruction until the budget is spent.
	hookInterval = 1000
	// clockInterval is how much charged work passes between two reads of
	// the clock from host functions.
	clockInterval = 4096
	// bytesPerInstruction converts bytes a host function produces or scans
	// into budget units.
	bytesPerInstruction = 16
	// errorCost is what an error caught by pcall or xpcall costs: raising
	// and catching one unwinds Go panics, about as slow as 500
	// instructions, so a loop of failing pcalls pays for what it burns.
	errorCost = 500
	// nodeCost is what converting one value costs (JSON, tables).
	nodeCost = 10
	// elementCost is what table.concat pays per element.
	elementCost = 20
	// patternStepCost is what one Lua pattern matcher step costs.
	patternStepCost = 3
)

// luaBudget enforces Limits on the call running on one state.
//
// go-lua's count hook runs only between VM instructions, so host functions
// charge their own work (charge) and the hook counts the rest. Once
// tripped, the hook is re-armed to run before every instruction and raises
// again, and the host's pcall and xpcall re-raise instead of returning
// false, so the plugin cannot swallow the error and carry on.
type luaBudget struct {
	limits    Limits
	errs      *Classes
	ctx       context.Context
	used      int64
	deadline  time.Time
	nextClock int64
	tripped   *budgetTrip
	// mem bounds the bytes the state holds from above: the last measure
	// (lua.MemoryInUse) plus every growth reported since. It outlives
	// calls: the state keeps what a call left in it. measured is what mem
	// was right after the last measure.
	mem, measured int64
}

// budgetTrip says why a call was stopped.
type budgetTrip struct {
	msg string
	err error // ErrBudget or ErrMemory, or the host's Cancelled / Timeout with ctx.Err()
}

// start arms the budget for one call.
func (b *luaBudget) start(ctx context.Context, l *lua.State) {
	b.ctx = ctx
	b.used = 0
	b.nextClock = clockInterval
	b.tripped = nil
	b.deadline = time.Now().Add(b.limits.Timeout)
	lua.SetDebugHook(l, b.hook, lua.MaskCount, hookInterval)
}

// stop disarms the hook, so nothing runs between calls.
func (b *luaBudget) stop(l *lua.State) {
	lua.SetDebugHook(l, nil, 0, 0)
	b.ctx = nil
}

func (b *luaBudget) hook(l *lua.State, _ lua.Debug) {
	if b.tripped != nil {
		b.raise(l)
	}
	b.used += hookInterval
	b.check(l)
}

// Charge counts n pattern-matching steps; it implements
// luapattern.Budget.
func (b *luaBudget) Charge(l *lua.State, steps int) {
	b.charge(l, int64(steps)*patternStepCost)
}

// charge counts n units of work done by a host function on l and stops
// the call if a budget is spent.

func (b *luaBudget) charge(l *lua.State, n int64) {
	if b.ctx == nil {
		return // not inside a budgeted call (state setup)
	}
	if b.tripped != nil {
		b.raise(l)
	}
	b.used += n
	if b.used > b.limits.Instructions {
		b.trip(l, &budgetTrip{msg: fmt.Sprintf("instruction budget exceeded (%d instructions)", b.limits.Instructions), err: ErrBudget})
	}
	if b.used >= b.nextClock {
		b.nextClock = b.used + clockInterval
		b.check(l)
	}
}

// chargeBytes charges work proportional to n bytes.
func (b *luaBudget) chargeBytes(l *lua.State, n int) {
	b.charge(l, int64(n/bytesPerInstruction))
}

func (b *luaBudget) check(l *lua.State) {
	if b.used > b.limits.Instructions {
		b.trip(l, &budgetTrip{msg: fmt.Sprintf("instruction budget exceeded (%d instructions)", b.limits.Instructions), err: ErrBudget})
	}
	now := time.Now()
	if b.ctx != nil {
		// The caller's deadline first, read from the clock rather than
		// ctx.Err (set by a timer a moment later), so a call whose own
		// deadline and budget end together reports the caller's timeout.
		err := b.ctx.Err()
		if d, ok := b.ctx.Deadline(); ok && err == nil && now.After(d) {
			err = context.DeadlineExceeded
		}
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			b.trip(l, &budgetTrip{msg: "stopped: " + err.Error(), err: fmt.Errorf("%w: %w", b.errs.Timeout, err)})
		case err != nil:
			b.trip(l, &budgetTrip{msg: "stopped: " + err.Error(), err: fmt.Errorf("%w: %w", b.errs.Cancelled, err)})
		}
	}
	if now.After(b.deadline) {
		b.trip(l, &budgetTrip{msg: fmt.Sprintf("time budget exceeded (%s)", b.limits.Timeout), err: ErrBudget})
	}
}

// trip records why the call stops, re-arms the hook to fire before every
// instruction from now on, and raises the error.
func (b *luaBudget) trip(l *lua.State, t *budgetTrip) {
	b.tripped = t
	lua.SetDebugHook(l, b.hook, lua.MaskCount, 1)
	b.raise(l)
}

// raiseIfTripped is for host functions that must not let Lua go on after
// a trip (pcall, xpcall).
func (b *luaBudget) raiseIfTripped(l *lua.State) {
	if b.tripped != nil {
		b.raise(l)
	}
}

func (b *luaBudget) raise(l *lua.State) {
	l.PushString(luaWhere(l) + b.tripped.msg)
	l.Error()
}

// luaWhere returns "chunk:line: " for the innermost Lua function running,
// or "" when there is none; lua.Where needs to know the level, which
// differs between hooks and Go functions. go-lua cannot always tell the
// line inside a count hook (it indexes before the first instruction), so
// a failure there just leaves the position out.
func luaWhere(l *lua.State) (where string) {
	defer func() {
		if recover() != nil {
			where = ""
		}
	}()
	for level := 0; level < 8; level++ {
		f, ok := lua.Stack(l, level)
		if !ok {
			break
		}
		d, _ := lua.Info(l, "Sl", f)
		if d.CurrentLine > 0 {
			return fmt.Sprintf("%s:%d: ", d.ShortSource, d.CurrentLine)
		}
	}
	return ""
}
