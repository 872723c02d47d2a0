package luapattern

import (
	"math"

	lua "ptywright/internal/golua"
)

// ChargeInterval is how many matcher steps pass between two calls to a
// Budget while one pattern function runs.
const ChargeInterval = 4096

// Budget is charged with the work pattern matching does, so that a host
// running untrusted or buggy Lua can stop a runaway pattern: go-lua's
// count hook only runs between VM instructions, never inside a Go
// function such as string.find, so without a Budget one call over a
// backtracking pattern (("a"):rep(30)..":" against "(a*)*b"-like
// patterns) can run for minutes.
//
// A step is one unit of matcher work: one attempt to match a pattern item
// at a subject position, or one subject byte consumed by a repetition or
// %b. Steps cost roughly as much as a few Lua VM instructions.
type Budget interface {
	// Charge records steps spent by the pattern function running on l.
	// It is called every ChargeInterval steps while a call runs and once
	// with the remainder when the call ends. To stop the call it raises a
	// Lua error (lua.Errorf), which propagates to the plugin unchanged; if
	// it returns, matching goes on.
	Charge(l *lua.State, steps int)
}

// MemoryBudget is told before a pattern function allocates a result it
// builds (gsub's output), so that a host can refuse it: a small pattern
// with a large replacement can ask for far more memory than its subject
// and replacement take.
type MemoryBudget interface {
	// Alloc is called before about n bytes are allocated for the call
	// running on l. To refuse, it raises a Lua error (lua.Errorf), which
	// propagates to the plugin unchanged; if it returns, the allocation
	// goes on.
	Alloc(l *lua.State, n int)
}

// Options bound the work of the pattern functions InstallWithOptions adds.
// The zero value bounds nothing, which is Lua's own behaviour.
type Options struct {
	// MaxSteps bounds the steps one call may take (string.find,
	// string.match, one step of a gmatch iterator, or a whole gsub); a
	// call that needs more fails with Lua's "pattern too complex"
	// (ErrTooComplex). 0 means no bound.
	MaxSteps int
	// Budget, when set, is charged with every step; see Budget.
	Budget Budget
	// Memory, when set, is told of every buffer gsub grows, before it
	// grows; see MemoryBudget.
	Memory MemoryBudget
}

// meter accounts for the steps of one matcher. The matcher's hot path only
// decrements matcher.left; the meter runs when a chunk of steps is used
// up, so an unmetered match pays one decrement per step.
type meter struct {
	l         *lua.State
	budget    Budget
	memory    MemoryBudget
	maxSteps  int // per call; 0: unbounded
	remaining int // steps left in this call when maxSteps > 0
	chunk     int // size of the chunk matcher.left counts down
}

// unmetered is matcher.left for a matcher without a meter: it is never
// exhausted in practice.
const unmetered = math.MaxInt

// startCall resets the per-call bound and opens the first chunk.
func (m *matcher) startCall() {
	mt := m.meter
	if mt == nil {
		m.left = unmetered
		return
	}
	mt.remaining = mt.maxSteps
	m.openChunk()
}

func (m *matcher) openChunk() {
	mt := m.meter
	c := ChargeInterval
	if mt.budget == nil {
		c = unmetered
	}
	if mt.maxSteps > 0 && mt.remaining < c {
		c = mt.remaining
	}
	mt.chunk = c
	m.left = c
}

// checkpoint runs when the current chunk is used up (matcher.left < 0):
// it charges the budget (which may raise a Lua error) and fails the match
// once the per-call bound is spent.
func (m *matcher) checkpoint() {
	mt := m.meter
	if mt == nil {
		m.left = unmetered
		return
	}
	spent := mt.chunk - m.left // m.left < 0: the overshoot counts too
	mt.chunk, m.left = 0, 0
	if mt.budget != nil {
		mt.budget.Charge(mt.l, spent)
	}
	if mt.maxSteps > 0 {
		if mt.remaining -= spent; mt.remaining < 0 {
			m.fail(msgTooComplex, ErrTooComplex)
		}
	}
	m.openChunk()
}

// spend counts n steps of work done outside the matcher's recursion (such
// as the bytes a gsub writes). It only moves the counter: the next step
// or flush charges them, where errors are handled.
func (m *matcher) spend(n int) {
	m.left -= n
}

// flush charges the steps of the unfinished chunk. The bindings call it
// when a call ends, outside the matcher's recovery, so a budget error
// reaches Lua as raised.
func (m *matcher) flush() {
	mt := m.meter
	if mt == nil || mt.budget == nil {
		return
	}
	used := mt.chunk - m.left
	if mt.maxSteps > 0 {
		mt.remaining -= used
	}
	mt.chunk = m.left
	if used > 0 {
		mt.budget.Charge(mt.l, used)
	}
}
