package ptywright

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	lua "github.com/Shopify/go-lua"

	"ptywright/internal/luapattern"

	"ptywright/manifest"
)

// Errors of the plugin host. Calls into a plugin fail with a *PluginError
// wrapping one of them (or ErrCancelled / ErrTimeout when the caller's
// context ended the call).
var (
	// ErrPluginBudget: a call used up its instruction or wall-clock budget
	// (see PluginLimits).
	ErrPluginBudget = errors.New("ptywright: plugin budget exceeded")
	// ErrPluginRuntime: the plugin raised a Lua error, returned something
	// the host cannot use, or does not export the function called.
	ErrPluginRuntime = errors.New("ptywright: plugin runtime error")
)

// PluginError is a failed call into a plugin. Message reads like Lua's own
// ("echo/main.lua:12: attempt to index a nil value"), or is the JSON form
// of a non-string error value (error({code = 1}) gives `{"code":1}`).
type PluginError struct {
	Plugin string
	// Function is what the host called: "classify", an intent, a wait
	// matcher, a predicate, "describe", or "(load)" for the chunk itself.
	Function string
	Message  string
	// Value is a non-string error value converted to Go (nil otherwise).
	Value any
	// Traceback is Lua's stack traceback where the error was raised, when
	// there was one.
	Traceback string
	// Err is the class: ErrPluginRuntime, ErrPluginBudget, ErrCancelled or
	// ErrTimeout, possibly joined with a more precise cause
	// (ErrInvalidAction, ErrInvalidMatcher, ErrPermissionDenied).
	Err error
}

func (e *PluginError) Error() string {
	return fmt.Sprintf("plugin %s: %s: %s", e.Plugin, e.Function, e.Message)
}

// Unwrap exposes the class to errors.Is and errors.As.
func (e *PluginError) Unwrap() error { return e.Err }

// Registry keys of the host's own values.
const (
	moduleKey = "ptywright.module"
	stashKey  = "ptywright.errors"
	// stashPrefix starts the string that stands for a non-string error
	// value while it crosses go-lua, which only carries strings.
	stashPrefix = "\x00ptywright error value #"
	// maxPrintBytes caps what print keeps per call.
	maxPrintBytes = 64 << 10
	// maxRegexCache bounds the compiled regular expressions kept per state.
	maxRegexCache = 64
)

// luaRuntime is one plugin instance: a go-lua state holding the plugin's
// module, opened with the base, string, table and math libraries only and
// the ptywright host table its permissions allow. It is not safe for
// concurrent use; LuaExtension and Plugins serialise calls.
//
// After an instruction or time budget error the state is kept: the error
// unwinds like any Lua error, so module-level values survive and the next
// call runs normally. After a memory budget error, a stack overflow (even one the plugin caught with pcall), an
// "error in error handling", or a Go panic in a host function or inside
// go-lua, the state is no longer trusted (go-lua keeps an oversized stack
// and may be mid-update): it is dropped when the call ends and the next
// call transparently runs on a fresh instance, without the old
// module-level values.
type luaRuntime struct {
	manifest manifest.Manifest
	source   string
	chunk    string
	limits   PluginLimits

	l          *lua.State
	budget     luaBudget
	emptyArray any
	regexes    map[string]*regexp.Regexp
	stashSeq   int
	output     bytes.Buffer
	outputCut  bool
	trace      string
	broken     bool
	closed     bool
	// salvaging is set while a failed state's cleanups run in it.
	salvaging bool

	// sdk is the runtime SDK's state (luasdk.go): events, logger,
	// cleanups, handlers.
	sdk luaSDK
}

func newLuaRuntime(ctx context.Context, m manifest.Manifest, source []byte, limits PluginLimits) (*luaRuntime, error) {
	return newLuaRuntimeSDK(ctx, m, source, limits, luaSDK{})
}

// newLuaRuntimeSDK is newLuaRuntime with the runtime SDK's settings
// (owner, logger, bus, inline mode) in place before the chunk runs.
func newLuaRuntimeSDK(ctx context.Context, m manifest.Manifest, source []byte, limits PluginLimits, sdk luaSDK) (*luaRuntime, error) {
	rt := &luaRuntime{
		manifest: *m.Clone(),
		source:   string(source),
		chunk:    "@" + m.Name + "/" + m.Entrypoint,
		limits:   limits.withDefaults(),
		sdk:      sdk,
	}
	if err := rt.load(ctx); err != nil {
		return nil, err
	}
	return rt, nil
}

// load builds a fresh state and runs the chunk.
func (rt *luaRuntime) load(ctx context.Context) error {
	rt.resetSDK()
	l := lua.NewState()
	rt.l = l
	rt.budget = luaBudget{limits: rt.limits}
	rt.budget.installMemoryBudget(l)
	rt.regexes = map[string]*regexp.Regexp{}
	if err := rt.openLibraries(l); err != nil {
		rt.l = nil
		return &PluginError{Plugin: rt.manifest.Name, Function: "(load)", Message: err.Error(), Err: ErrPluginRuntime}
	}
	if err := lua.LoadBuffer(l, rt.source, rt.chunk, "t"); err != nil {
		msg, _ := l.ToString(-1)
		rt.l = nil
		return &PluginError{Plugin: rt.manifest.Name, Function: "(load)", Message: msg, Err: ErrPluginRuntime}
	}
	l.SetField(lua.RegistryIndex, "ptywright.chunk")
	rt.broken = false
	err := rt.protected(ctx, "(load)", func(l *lua.State) error {
		l.Field(lua.RegistryIndex, "ptywright.chunk")
		l.PushNil()
		l.SetField(lua.RegistryIndex, "ptywright.chunk")
		l.Call(0, 1)
		if rt.sdk.inline && l.IsNil(-1) {
			// An inline script may just define global functions.
			l.Pop(1)
			l.PushGlobalTable()
		}
		if !l.IsTable(-1) {
			return fmt.Errorf("%s must return a table of functions (the module), got %s", rt.manifest.Entrypoint, lua.TypeNameOf(l, -1))
		}
		l.SetField(lua.RegistryIndex, moduleKey)
		return nil
	})
	if err != nil {
		rt.l = nil
		return err
	}
	return nil
}

// openLibraries opens the safe standard libraries, removes what could
// reach outside the state, and installs the host's replacements and the
// ptywright table.
func (rt *luaRuntime) openLibraries(l *lua.State) error {
	for _, lib := range []struct {
		name string
		open lua.Function
	}{{"_G", lua.BaseOpen}, {"string", lua.StringOpen}, {"table", lua.TableOpen}, {"math", lua.MathOpen}} {
		lua.Require(l, lib.name, lib.open, true)
		l.Pop(1)
	}
	// Loading code from files or strings, and a process-wide GC, are out.
	for _, name := range []string{"dofile", "loadfile", "load", "loadstring", "require", "module", "collectgarbage"} {
		l.PushNil()
		l.SetGlobal(name)
	}
	for name, f := range map[string]lua.Function{
		"print":  rt.print,
		"error":  rt.luaError,
		"pcall":  rt.pcall,
		"xpcall": rt.xpcall,
	} {
		l.PushGoFunction(f)
		l.SetGlobal(name)
	}
	l.Global("string")
	l.PushGoFunction(rt.stringRep)
	l.SetField(-2, "rep")
	l.PushGoFunction(asciiCase("lower", 'A', 'Z', 'a'-'A'))
	l.SetField(-2, "lower")
	l.PushGoFunction(asciiCase("upper", 'a', 'z', 'A'-'a'))
	l.SetField(-2, "upper")
	l.Field(-1, "format")
	format := l.ToGoFunction(-1)
	l.Pop(1)
	l.PushGoFunction(rt.formatBudgeted(format))
	l.SetField(-2, "format")
	l.Pop(1)
	l.Global("table")
	l.PushGoFunction(rt.tableConcat)
	l.SetField(-2, "concat")
	l.Pop(1)
	if err := luapattern.InstallWithOptions(l, luapattern.Options{Budget: &rt.budget, Memory: &rt.budget}); err != nil {
		return err
	}
	// Every Go function a plugin can reach turns a Go panic into a Lua
	// error: go-lua itself has a few (string.format("%")).
	l.PushGlobalTable()
	rt.wrapGoFunctions(l, "")
	for _, lib := range []string{"string", "table", "math"} {
		l.Field(-1, lib)
		rt.wrapGoFunctions(l, lib+".")
		l.Pop(1)
	}
	l.Pop(1)
	l.NewTable()
	l.SetField(lua.RegistryIndex, stashKey)
	rt.installResultHelpers(l)
	return rt.installHostAPI(l)
}

// wrapGoFunctions replaces every Go function in the table on top of the
// stack with one that recovers Go panics into Lua errors.
func (rt *luaRuntime) wrapGoFunctions(l *lua.State, prefix string) {
	var names []string
	l.PushNil()
	for l.Next(-2) {
		if l.IsGoFunction(-1) && l.TypeOf(-2) == lua.TypeString {
			k, _ := l.ToString(-2)
			names = append(names, k)
		}
		l.Pop(1)
	}
	for _, name := range names {
		l.Field(-1, name)
		f := l.ToGoFunction(-1)
		l.Pop(1)
		l.PushGoFunction(rt.safe(prefix+name, f))
		l.SetField(-2, name)
	}
}

// safe turns a Go panic in f (a bug, in go-lua or here) into a Lua error
// naming the function, so it reaches the plugin as an error and the host
// as a *PluginError instead of crashing the process. Lua errors, which
// go-lua raises as panics too, pass through untouched. The panic may have
// left go-lua half-way through an update, so the state is replaced after
// the call.
func (rt *luaRuntime) safe(name string, f lua.Function) lua.Function {
	return func(l *lua.State) int {
		defer func() {
			if r := recover(); r != nil {
				if isLuaError(r) {
					panic(r)
				}
				rt.broken = true
				lua.Errorf(l, "%s", fmt.Sprintf("%s: host function failed: %v", name, r))
			}
		}()
		return f(l)
	}
}

func isLuaError(r any) bool {
	if _, ok := r.(lua.RuntimeError); ok {
		return true
	}
	return r == lua.SyntaxError || r == lua.ErrorError || r == lua.MemoryError
}

// Call protocol.

// protected runs body inside one protected call on a budget: Lua errors,
// budget trips and Go panics all come back as a *PluginError for function.
func (rt *luaRuntime) protected(ctx context.Context, function string, body func(*lua.State) error) (err error) {
	l := rt.l
	rt.begin(ctx)
	defer rt.end()
	defer func() {
		if r := recover(); r != nil {
			rt.broken = true
			err = &PluginError{Plugin: rt.manifest.Name, Function: function, Message: fmt.Sprintf("interpreter failure: %v", r), Err: ErrPluginRuntime}
		}
	}()
	var bodyErr error
	l.SetTop(0)
	l.PushGoFunction(rt.messageHandler)
	l.PushGoFunction(func(l *lua.State) int {
		bodyErr = body(l)
		return 0
	})
	if perr := l.ProtectedCall(0, 0, 1); perr != nil {
		return rt.callError(function, perr)
	}
	if bodyErr != nil {
		return &PluginError{Plugin: rt.manifest.Name, Function: function, Message: bodyErr.Error(), Err: errors.Join(ErrPluginRuntime, bodyErr)}
	}
	return nil
}

func (rt *luaRuntime) begin(ctx context.Context) {
	if ctx == nil {
		ctx = context.Background()
	}
	rt.output.Reset()
	rt.outputCut = false
	rt.trace = ""
	rt.stashSeq = 0
	l := rt.l
	l.NewTable()
	l.SetField(lua.RegistryIndex, stashKey)
	rt.budget.start(ctx, l)
}

func (rt *luaRuntime) end() {
	if rt.l == nil {
		return
	}
	if rt.broken {
		// Not trusted any more: drop it (and the oversized stack a stack
		// overflow leaves); ensure loads a fresh one for the next call.
		// Its cleanups live in it, so they run first, as the state ends.
		if !rt.salvaging && rt.pendingCleanups() > 0 {
			rt.salvageCleanups()
		}
		rt.l = nil
		return
	}
	rt.budget.stop(rt.l)
	rt.l.SetTop(0)
}

// callError turns a failed protected call into a *PluginError.
func (rt *luaRuntime) callError(function string, perr error) error {
	l := rt.l
	pe := &PluginError{Plugin: rt.manifest.Name, Function: function, Traceback: rt.trace, Err: ErrPluginRuntime}
	switch {
	case perr == lua.ErrorError:
		rt.broken = true
		pe.Message = "error in error handling (the plugin probably overflowed its stack)"
		return pe
	case !isLuaError(perr):
		// A Go runtime error inside go-lua that its own recovery caught;
		// the stack holds nothing meaningful.
		rt.broken = true
		pe.Message = "interpreter failure: " + perr.Error()
		return pe
	}
	if l.Top() > 0 {
		rt.unstash(l, -1)
		if invalidParamsError(l, -1, pe) {
			return pe
		}
		if l.IsString(-1) {
			pe.Message, _ = l.ToString(-1)
		} else {
			v, err := newLuaToGo(l, rt.emptyArray).value(-1, "error")
			if err != nil {
				pe.Message = fmt.Sprintf("(error value: a %s: %v)", lua.TypeNameOf(l, -1), err)
			} else {
				pe.Value = v
				raw, _ := marshalJSON(v)
				pe.Message = string(raw)
			}
			if where := firstFrame(rt.trace); where != "" {
				pe.Message += " (at " + where + ")"
			}
		}
	}
	if pe.Message == "" {
		pe.Message = strings.TrimPrefix(perr.Error(), "runtime error: ")
	}
	if t := rt.budget.tripped; t != nil {
		pe.Err = t.err
		if errors.Is(t.err, ErrPluginMemory) {
			// Drop the state: it is full, and the next call should not
			// start where this one was refused.
			rt.broken = true
		}
	} else if strings.Contains(pe.Message, "stack overflow") {
		rt.broken = true
	}
	return pe
}

// firstFrame returns the first Lua position ("echo/main.lua:3") of a
// traceback.
func firstFrame(trace string) string {
	for line := range strings.SplitSeq(trace, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "stack traceback") || strings.HasPrefix(line, "[Go]") {
			continue
		}
		if i := strings.Index(line, ": in "); i > 0 {
			return strings.TrimSuffix(line[:i], ":")
		}
	}
	return ""
}

// messageHandler runs where an error is raised, before the stack unwinds,
// to keep Lua's traceback. It returns the error value unchanged. go-lua
// reads a message handler's index as an absolute stack slot, so protected
// pushes it at slot 1 of an empty stack, where both readings agree.
func (rt *luaRuntime) messageHandler(l *lua.State) int {
	rt.trace = traceback(l, 1)
	l.SetTop(1)
	return 1
}

// traceback is lua.Traceback made safe: go-lua panics computing the line
// of a function stopped by a count hook right after a jump to its first
// instruction, so each frame is read under recover and such a line is
// left out. It lists at most maxTraceFrames frames.
func traceback(l *lua.State, level int) string {
	const maxTraceFrames = 20
	var b strings.Builder
	b.WriteString("stack traceback:")
	for n := 0; ; n++ {
		f, ok := lua.Stack(l, level+n)
		if !ok {
			break
		}
		if n == maxTraceFrames {
			b.WriteString("\n\t...")
			break
		}
		b.WriteString("\n\t")
		b.WriteString(frameInfo(l, f))
	}
	return b.String()
}

func frameInfo(l *lua.State, f lua.Frame) (s string) {
	d, _ := lua.Info(l, "S", f)
	s = d.ShortSource + ":"
	func() {
		defer func() { _ = recover() }()
		if d, _ := lua.Info(l, "l", f); d.CurrentLine > 0 {
			s += strconv.Itoa(d.CurrentLine) + ":"
		}
	}()
	// go-lua's function names ("n") read the instruction after the call,
	// so they are wrong or missing, and it cannot push a Go frame's
	// function to look it up: Go frames stay anonymous.
	switch d.What {
	case "main":
		return s + " in main chunk"
	case "Go":
		return s + " in ?"
	}
	return s + fmt.Sprintf(" in function <%s:%d>", d.ShortSource, d.LineDefined)
}

// Error values. go-lua converts every error value to a string as it
// raises it, so error({code = 1}) would reach pcall as an unrelated
// message. The host's error() stores a non-string value in a per-call
// registry table and raises a token instead; the host's pcall and xpcall,
// and the host itself, swap the token back for the value.

func (rt *luaRuntime) luaError(l *lua.State) int {
	level := lua.OptInteger(l, 2, 1)
	l.SetTop(1)
	if l.TypeOf(1) == lua.TypeString {
		if level > 0 {
			lua.Where(l, level)
			l.PushValue(1)
			l.Concat(2)
		}
	} else {
		l.PushString(rt.stash(l, 1))
	}
	l.Error()
	return 0
}

func (rt *luaRuntime) stash(l *lua.State, idx int) string {
	idx = l.AbsIndex(idx)
	rt.stashSeq++
	tok := fmt.Sprintf("%s%d", stashPrefix, rt.stashSeq)
	l.Field(lua.RegistryIndex, stashKey)
	l.PushValue(idx)
	l.SetField(-2, tok)
	l.Pop(1)
	return tok
}

// unstash replaces a token at idx with the value it stands for.
func (rt *luaRuntime) unstash(l *lua.State, idx int) {
	if l.TypeOf(idx) != lua.TypeString {
		return
	}
	s, _ := l.ToString(idx)
	if !strings.HasPrefix(s, stashPrefix) {
		return
	}
	idx = l.AbsIndex(idx)
	l.Field(lua.RegistryIndex, stashKey)
	l.Field(-1, s)
	l.PushNil()
	l.SetField(-3, s)
	l.Replace(idx)
	l.Pop(1)
}

func (rt *luaRuntime) pcall(l *lua.State) int {
	lua.CheckAny(l, 1)
	rt.budget.raiseIfTripped(l)
	l.PushNil()
	l.Insert(1) // room for the status
	err := l.ProtectedCall(l.Top()-2, lua.MultipleReturns, 0)
	rt.budget.raiseIfTripped(l)
	if err != nil {
		rt.budget.charge(l, errorCost)
		rt.noteFailure(err)
		rt.unstash(l, -1)
		l.PushBoolean(false)
		l.Replace(1)
		return 2
	}
	l.PushBoolean(true)
	l.Replace(1)
	return l.Top()
}

// xpcall calls the handler after the failed call has unwound, not where
// the error was raised: go-lua takes xpcall's handler index as an absolute
// stack slot (a bug), so its own xpcall calls whatever sits there. With no
// debug library a plugin cannot tell the difference. An error in the
// handler is returned in place of the original.
func (rt *luaRuntime) xpcall(l *lua.State) int {
	n := l.Top()
	if n < 2 {
		lua.Errorf(l, "bad argument #2 to 'xpcall' (value expected)")
	}
	rt.budget.raiseIfTripped(l)
	l.PushValue(1) // swap function and handler: handler, f, args...
	l.Copy(2, 1)
	l.Replace(2)
	err := l.ProtectedCall(n-2, lua.MultipleReturns, 0)
	rt.budget.raiseIfTripped(l)
	if err == nil {
		l.PushBoolean(true)
		l.Replace(1)
		return l.Top()
	}
	rt.budget.charge(l, errorCost)
	rt.noteFailure(err)
	rt.unstash(l, -1)
	// Stack: handler, error value.
	herr := l.ProtectedCall(1, 1, 0)
	rt.budget.raiseIfTripped(l)
	if herr != nil {
		rt.noteFailure(herr)
	}
	rt.unstash(l, -1)
	l.PushBoolean(false)
	l.Insert(-2)
	return 2
}

// noteFailure marks the state for replacement when a pcall inside the
// plugin caught an error that leaves go-lua untrustworthy.
func (rt *luaRuntime) noteFailure(err error) {
	if !isLuaError(err) || err == lua.ErrorError {
		rt.broken = true
		return
	}
	if s, ok := rt.l.ToString(-1); ok && strings.Contains(s, "stack overflow") {
		rt.broken = true
	}
}

// print collects output for the host instead of writing to stdout.
func (rt *luaRuntime) print(l *lua.State) int {
	n := l.Top()
	for i := 1; i <= n; i++ {
		s, _ := lua.ToStringMeta(l, i)
		l.Pop(1)
		if i > 1 {
			rt.writeOutput("\t")
		}
		rt.writeOutput(s)
	}
	rt.writeOutput("\n")
	return 0
}

func (rt *luaRuntime) writeOutput(s string) {
	rt.budget.chargeBytes(rt.l, len(s))
	if room := maxPrintBytes - rt.output.Len(); len(s) > room {
		s = s[:max(room, 0)]
		rt.outputCut = true
	}
	rt.output.WriteString(s)
}

// lastOutput is what print wrote during the last call, "[output
// truncated]" marking a cut.
func (rt *luaRuntime) lastOutput() string {
	if rt.outputCut {
		return rt.output.String() + "\n[output truncated]"
	}
	return rt.output.String()
}

// stringRep is string.rep with its result capped at MaxPluginStringBytes
// and charged to the budget.
func (rt *luaRuntime) stringRep(l *lua.State) int {
	s := checkStringArg(l, "rep", 1)
	n := checkIntArg(l, "rep", 2)
	sep := ""
	if !l.IsNoneOrNil(3) {
		sep = checkStringArg(l, "rep", 3)
	}
	if n <= 0 {
		l.PushString("")
		return 1
	}
	unit := len(s) + len(sep)
	if unit > 0 && n > (MaxPluginStringBytes+len(sep))/unit {
		lua.Errorf(l, "string.rep: result would exceed %d bytes", MaxPluginStringBytes)
	}
	size := n*len(s) + (n-1)*len(sep)
	rt.budget.chargeBytes(l, size)
	rt.budget.alloc(l, size)
	if sep == "" {
		l.PushString(strings.Repeat(s, n))
		return 1
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(s)
	for ; n > 1; n-- {
		b.WriteString(sep)
		b.WriteString(s)
	}
	l.PushString(b.String())
	return 1
}

// asciiCase is string.lower / string.upper as Lua has them in the C
// locale: only ASCII letters change, every other byte is kept, so the
// result has the same length and offsets (go-lua's use Unicode case
// mapping, which can change both, and is several times slower).
func asciiCase(fname string, from, to byte, delta int) lua.Function {
	return func(l *lua.State) int {
		s := checkStringArg(l, fname, 1)
		i := 0
		for i < len(s) && (s[i] < from || s[i] > to) {
			i++
		}
		if i == len(s) {
			l.PushString(s)
			return 1
		}
		b := []byte(s)
		for ; i < len(b); i++ {
			if c := b[i]; c >= from && c <= to {
				b[i] = byte(int(c) + delta)
			}
		}
		l.PushString(string(b))
		return 1
	}
}

// tableConcat is table.concat in linear time (go-lua's is quadratic),
// capped at MaxPluginStringBytes and charged to the budget.
func (rt *luaRuntime) tableConcat(l *lua.State) int {
	lua.CheckType(l, 1, lua.TypeTable)
	sep := ""
	if !l.IsNoneOrNil(2) {
		sep = checkStringArg(l, "concat", 2)
	}
	i := 1
	if !l.IsNoneOrNil(3) {
		i = checkIntArg(l, "concat", 3)
	}
	var last int
	if l.IsNoneOrNil(4) {
		last = lua.LengthEx(l, 1)
	} else {
		last = checkIntArg(l, "concat", 4)
	}
	var b strings.Builder
	for ; i <= last; i++ {
		l.RawGetInt(1, i)
		s, ok := l.ToString(-1)
		if !ok {
			lua.Errorf(l, "invalid value (at index %d) in table for 'concat'", i)
		}
		l.Pop(1)
		if b.Len()+len(s)+len(sep) > MaxPluginStringBytes {
			lua.Errorf(l, "table.concat: result would exceed %d bytes", MaxPluginStringBytes)
		}
		rt.budget.grow(l, &b, len(s)+len(sep))
		b.WriteString(s)
		if i < last {
			b.WriteString(sep)
		}
		rt.budget.charge(l, elementCost+int64((len(s)+len(sep))/bytesPerInstruction))
	}
	l.PushString(b.String())
	return 1
}

// regex compiles re (Go RE2 syntax) once per state; the cache is dropped
// when it fills up.
func (rt *luaRuntime) regex(l *lua.State, fname string, arg int, re string) *regexp.Regexp {
	if c, ok := rt.regexes[re]; ok {
		return c
	}
	rt.budget.chargeBytes(l, len(re)*bytesPerInstruction)
	c, err := regexp.Compile(re)
	if err != nil {
		argError(l, fname, arg, "invalid regular expression: "+err.Error())
	}
	if len(rt.regexes) >= maxRegexCache {
		clear(rt.regexes)
	}
	rt.regexes[re] = c
	return c
}

func (rt *luaRuntime) close() {
	rt.closed = true
	rt.l = nil
}

// Argument checks in luaL style, naming the function themselves: go-lua's
// helpers call every Go function '?'.

func argError(l *lua.State, fname string, arg int, msg string) {
	lua.Errorf(l, "bad argument #%d to '%s' (%s)", arg, fname, msg)
}

func checkStringArg(l *lua.State, fname string, arg int) string {
	s, ok := l.ToString(arg)
	if !ok {
		argError(l, fname, arg, "string expected, got "+typeNameArg(l, arg))
	}
	return s
}

func checkIntArg(l *lua.State, fname string, arg int) int {
	f, ok := l.ToNumber(arg)
	if !ok {
		argError(l, fname, arg, "number expected, got "+typeNameArg(l, arg))
	}
	if f != float64(int64(f)) {
		argError(l, fname, arg, "number has no integer representation")
	}
	return int(f)
}

func typeNameArg(l *lua.State, arg int) string {
	if l.IsNone(arg) {
		return "no value"
	}
	return lua.TypeNameOf(l, arg)
}
