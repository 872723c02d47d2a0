package lua

// ptywright patch: memory accounting. This file is not part of upstream
// go-lua; see PATCHES.md next to it.
//
// Go manages go-lua's memory, so unlike C Lua there is no allocator a host
// can limit. The patch adds the two things a host needs to enforce a memory
// budget on a state itself: a hook called before the interpreter makes the
// state grow (SetAllocHook), which may refuse by raising a Lua error, and
// a measure of what the state holds (MemoryInUse), to tell live memory
// from garbage the Go collector will reclaim.

import "unsafe"

// Sizes the accounting uses, in bytes: estimates of what the Go
// representation costs on a 64-bit platform, not exact figures.
const (
	valueBytes     = 16 // an interface slot: a stack slot, an array element
	stringOverhead = 16 // a string header boxed in an interface
	tableOverhead  = 96 // the table struct and an empty map
	hashEntryBytes = 48 // one key/value pair of a table's map, with its share of slack
	closureBase    = 48 // a Lua closure and its upvalue slice header
	upValueBytes   = 40 // one upvalue, its slice slot and open-list node
	// dedupeStringBytes is the length from which MemoryInUse counts a
	// string once however many values refer to it; shorter ones are
	// counted per reference, which costs less than remembering them.
	dedupeStringBytes = 64
)

func stringBytes(n int) int { return n + stringOverhead }

func tableBytes(arrayCount, recordCount int) int {
	return tableOverhead + max(arrayCount, 0)*valueBytes + max(recordCount, 0)*hashEntryBytes
}

func closureBytes(upValueCount int) int { return closureBase + upValueCount*upValueBytes }

// AllocHook is called before the interpreter grows the state by about n
// bytes: a string built by concatenation (the .. operator, Concat), a
// string pushed by a Go function (PushString, so every library function
// returning a new string), a new table (a constructor, NewTable,
// CreateTable), a table's array part growing or a new key in its hash
// part, a new closure. The hook may raise a Lua error (Error, Errorf) to
// refuse the growth, which then does not happen; if it returns, the
// growth goes on. n is an estimate, and a report, not a reservation: the
// hook cannot tell when memory is freed (see MemoryInUse).
//
// The hook runs on every growth, so it must be cheap in the common case.
// It must not call into the state except to raise an error or to measure
// it with MemoryInUse.
type AllocHook func(l *State, n int)

// SetAllocHook sets the hook for every thread of l's state; nil removes
// it.
func SetAllocHook(l *State, f AllocHook) { l.global.allocHook = f }

// alloc reports a growth of about n bytes to the hook, if any.
func (l *State) alloc(n int) {
	if h := l.global.allocHook; h != nil {
		h(l, n)
	}
}

// MemoryInUse estimates the bytes l's state holds: everything reachable
// from the registry (and so the globals), the basic types' metatables and
// the stacks of the state's threads, counting strings, tables, closures,
// function prototypes, upvalues, stacks and call frames. Garbage is not
// counted. visits is the number of values examined, a measure of what the
// call cost. It allocates bookkeeping proportional to the number of
// objects reached, not to their size.
func MemoryInUse(l *State) (bytes, visits int) {
	g := l.global
	w := memoryWalk{seen: make(map[unsafe.Pointer]struct{}, g.lastWalkObjects)}
	w.value(g.registry)
	for _, mt := range g.metaTables {
		if mt != nil {
			w.value(mt)
		}
	}
	w.value(g.mainThread)
	w.value(l)
	for len(w.work) > 0 {
		v := w.work[len(w.work)-1]
		w.work = w.work[:len(w.work)-1]
		w.object(v)
	}
	g.lastWalkObjects = len(w.seen)
	return w.bytes, w.visits
}

type memoryWalk struct {
	// seen holds the address of every object counted, and of the bytes
	// of every long string: distinct live allocations have distinct
	// addresses.
	seen   map[unsafe.Pointer]struct{}
	work   []value
	bytes  int
	visits int
}

// first reports whether p is met for the first time, and remembers it.
func (w *memoryWalk) first(p unsafe.Pointer) bool {
	if _, ok := w.seen[p]; ok {
		return false
	}
	w.seen[p] = struct{}{}
	return true
}

// value counts v's own size when it is a string, and queues an object the
// walk has not met yet.
func (w *memoryWalk) value(v value) {
	w.visits++
	switch o := v.(type) {
	case nil, bool, float64:
	case string:
		if len(o) < dedupeStringBytes || w.first(unsafe.Pointer(unsafe.StringData(o))) {
			w.bytes += stringBytes(len(o))
		}
	case *table:
		if w.first(unsafe.Pointer(o)) {
			w.work = append(w.work, v)
		}
	case *luaClosure:
		if w.first(unsafe.Pointer(o)) {
			w.work = append(w.work, v)
		}
	case *goClosure:
		if w.first(unsafe.Pointer(o)) {
			w.work = append(w.work, v)
		}
	case *userData:
		if w.first(unsafe.Pointer(o)) {
			w.work = append(w.work, v)
		}
	case *State:
		if w.first(unsafe.Pointer(o)) {
			w.work = append(w.work, v)
		}
	default:
		w.bytes += valueBytes // a Go function, light user data
	}
}

func (w *memoryWalk) object(v value) {
	switch v := v.(type) {
	case *table:
		w.bytes += tableOverhead + cap(v.array)*valueBytes + len(v.hash)*hashEntryBytes + cap(v.iterationKeys)*valueBytes
		for _, e := range v.array {
			w.value(e)
		}
		for k, e := range v.hash {
			w.value(k)
			w.value(e)
		}
		if v.metaTable != nil {
			w.value(v.metaTable)
		}
	case *luaClosure:
		w.bytes += closureBytes(len(v.upValues))
		w.prototype(v.prototype)
		for _, uv := range v.upValues {
			if uv == nil {
				continue
			}
			if _, ok := uv.home.(stackLocation); !ok && w.first(unsafe.Pointer(uv)) { // closed: it holds the value
				w.value(uv.home)
			}
		}
	case *goClosure:
		w.bytes += closureBase + len(v.upValues)*valueBytes
		for _, e := range v.upValues {
			w.value(e)
		}
	case *userData:
		w.bytes += 3 * valueBytes
		if v.metaTable != nil {
			w.value(v.metaTable)
		}
		if v.env != nil {
			w.value(v.env)
		}
	case *State:
		// The whole stack slice: slots above top still hold what Go
		// cannot collect until they are overwritten.
		w.bytes += 256 + cap(v.stack)*valueBytes
		for _, e := range v.stack {
			w.value(e)
		}
		for ci := v.callInfo; ci != nil; ci = ci.previous {
			w.bytes += 160
		}
		for uv := v.upValues; uv != nil; uv = uv.next {
			w.bytes += upValueBytes
		}
	}
}

// prototype counts a function's code, constants and nested functions once.
func (w *memoryWalk) prototype(p *prototype) {
	if p == nil || !w.first(unsafe.Pointer(p)) {
		return
	}
	w.bytes += 160 + cap(p.code)*4 + cap(p.constants)*valueBytes + cap(p.lineInfo)*4 +
		cap(p.localVariables)*40 + cap(p.upValues)*40
	w.value(p.source)
	for _, k := range p.constants {
		w.value(k)
	}
	for i := range p.prototypes {
		w.prototype(&p.prototypes[i])
	}
	if p.cache != nil {
		w.value(p.cache)
	}
}
