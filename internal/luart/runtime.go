package luart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	lua "ptywright/internal/golua"
	"ptywright/internal/luapattern"
	"ptywright/manifest"
)

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

// Runtime is one plugin instance: a go-lua state holding the plugin's
// module, opened with the base, string, table and math libraries only and
// the ptywright host table its permissions allow. It is not safe for
// concurrent use: its owner (luahost.Extension) serialises calls.
//
// After an instruction or time budget error the state is kept: the error
// unwinds like any Lua error, so module-level values survive and the next
// call runs normally. After a memory budget error, a stack overflow (even
// one the plugin caught with pcall), an
// "error in error handling", or a Go panic in a host function or inside
// go-lua, the state is no longer trusted (go-lua keeps an oversized stack
// and may be mid-update): it is dropped when the call ends and the next
// call transparently runs on a fresh instance, without the old
// module-level values.
type Runtime struct {
	manifest manifest.Manifest
	source   string
	chunk    string
	limits   Limits

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

	// host is the embedder's side (see Host).
	host *Host

	// sdk is the runtime SDK's state (sdk.go): events, logger,
	// cleanups, handlers.
	sdk luaSDK
}

// New loads cfg.Source into a fresh Lua state and runs it under the call
// budget. A syntax error, a runtime error or a chunk that does not return
// a table is an *Error for function "(load)". The manifest is not
// validated here: the host does that before.
func New(ctx context.Context, cfg Config) (*Runtime, error) {
	if cfg.Host == nil {
		return nil, errors.New("luart: Config.Host is nil")
	}
	rt := &Runtime{
		manifest: *cfg.Manifest.Clone(),
		source:   string(cfg.Source),
		chunk:    "@" + cfg.Manifest.Name + "/" + cfg.Manifest.Entrypoint,
		limits:   cfg.Limits.WithDefaults(),
		host:     cfg.Host,
		sdk: luaSDK{inline: cfg.Inline, emit: cfg.Emit, scope: cfg.Scope, log: cfg.Logger,
			handled: cfg.Handled},
	}
	if err := rt.load(ctx); err != nil {
		return nil, err
	}
	return rt, nil
}

// load builds a fresh state and runs the chunk.
func (rt *Runtime) load(ctx context.Context) error {
	rt.resetSDK()
	l := lua.NewState()
	rt.l = l
	rt.budget = luaBudget{limits: rt.limits, errs: &rt.host.Errors}
	rt.budget.installMemoryBudget(l)
	rt.regexes = map[string]*regexp.Regexp{}
	if err := rt.openLibraries(l); err != nil {
		rt.l = nil
		return &Error{Plugin: rt.manifest.Name, Function: "(load)", Message: err.Error(), Err: ErrRuntime}
	}
	if err := lua.LoadBuffer(l, rt.source, rt.chunk, "t"); err != nil {
		msg, _ := l.ToString(-1)
		rt.l = nil
		return &Error{Plugin: rt.manifest.Name, Function: "(load)", Message: msg, Err: ErrRuntime}
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
func (rt *Runtime) openLibraries(l *lua.State) error {
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
func (rt *Runtime) wrapGoFunctions(l *lua.State, prefix string) {
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
// as a *Error instead of crashing the process. Lua errors, which
// go-lua raises as panics too, pass through untouched. The panic may have
// left go-lua half-way through an update, so the state is replaced after
// the call.
func (rt *Runtime) safe(name string, f lua.Function) lua.Function {
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
// budget trips and Go panics all come back as a *Error for function.
func (rt *Runtime) protected(ctx context.Context, function string, body func(*lua.State) error) (err error) {
	l := rt.l
	rt.begin(ctx)
	defer rt.end()
	defer func() {
		if r := recover(); r != nil {
			rt.broken = true
			err = &Error{Plugin: rt.manifest.Name, Function: function, Message: fmt.Sprintf("interpreter failure: %v", r), Err: ErrRuntime}
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
		return &Error{Plugin: rt.manifest.Name, Function: function, Message: bodyErr.Error(), Err: errors.Join(ErrRuntime, bodyErr)}
	}
	return nil
}

func (rt *Runtime) begin(ctx context.Context) {
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

func (rt *Runtime) end() {
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

// callError turns a failed protected call into a *Error.
func (rt *Runtime) callError(function string, perr error) error {
	l := rt.l
	pe := &Error{Plugin: rt.manifest.Name, Function: function, Traceback: rt.trace, Err: ErrRuntime}
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
		if rt.invalidParamsError(l, -1, pe) {
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
		if errors.Is(t.err, ErrMemory) {
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
func (rt *Runtime) messageHandler(l *lua.State) int {
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

func (rt *Runtime) luaError(l *lua.State) int {
	level := OptInt(l, "error", 2, 1)
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

func (rt *Runtime) stash(l *lua.State, idx int) string {
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
func (rt *Runtime) unstash(l *lua.State, idx int) {
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

func (rt *Runtime) pcall(l *lua.State) int {
	CheckAny(l, "pcall", 1)
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
func (rt *Runtime) xpcall(l *lua.State) int {
	n := l.Top()
	CheckAny(l, "xpcall", 2)
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
func (rt *Runtime) noteFailure(err error) {
	if !isLuaError(err) || err == lua.ErrorError {
		rt.broken = true
		return
	}
	if s, ok := rt.l.ToString(-1); ok && strings.Contains(s, "stack overflow") {
		rt.broken = true
	}
}

func (rt *Runtime) close() {
	rt.closed = true
	rt.l = nil
}
