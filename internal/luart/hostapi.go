package luart

import (
	"regexp"
	"strconv"

	lua "ptywright/internal/golua"
	"ptywright/manifest"
)

// installHostAPI sets the global ptywright table. Helpers the manifest did
// not ask permission for are not there at all: ptywright.action.kill is
// nil without session.kill, ptywright.action is nil without any of
// input.write, session.kill and session.resize, and ptywright.matcher is
// nil without matcher.wait.
func (rt *Runtime) installHostAPI(l *lua.State) error {
	m := &rt.manifest
	l.NewTable()
	l.PushString(rt.host.Version)
	l.SetField(-2, "version")

	// empty_array converts to [] where an empty table would be {}.
	l.NewTable()
	rt.emptyArray = l.ToValue(-1)
	l.NewTable()
	l.PushGoFunction(rt.safe("empty_array", func(l *lua.State) int {
		lua.Errorf(l, "ptywright.empty_array is read-only")
		return 0
	}))
	l.SetField(-2, "__newindex")
	l.PushBoolean(false)
	l.SetField(-2, "__metatable")
	l.SetMetaTable(-2)
	l.SetField(-2, "empty_array")

	var actions []lua.RegistryFunction
	if m.HasPermission(manifest.PermissionInputWrite) {
		actions = append(actions,
			lua.RegistryFunction{Name: "text", Function: textAction("text", "text")},
			lua.RegistryFunction{Name: "paste", Function: textAction("paste", "paste")},
			lua.RegistryFunction{Name: "bracketed_paste", Function: textAction("bracketed_paste", "bracketed_paste")},
			lua.RegistryFunction{Name: "key", Function: namedAction("key", "key", rt.host.ParseKey)},
			lua.RegistryFunction{Name: "interrupt", Function: bareAction("interrupt")},
			lua.RegistryFunction{Name: "eof", Function: bareAction("eof")},
			lua.RegistryFunction{Name: "mark_transcript", Function: markAction},
			lua.RegistryFunction{Name: "key_name", Function: rt.actionKeyName},
			lua.RegistryFunction{Name: "select", Function: actionSelect},
		)
	}
	if m.HasPermission(manifest.PermissionSessionKill) {
		actions = append(actions,
			lua.RegistryFunction{Name: "kill", Function: bareAction("kill")},
			lua.RegistryFunction{Name: "signal", Function: namedAction("signal", "signal", rt.host.ParseSignal)},
		)
	}
	if m.HasPermission(manifest.PermissionSessionResize) {
		actions = append(actions, lua.RegistryFunction{Name: "resize", Function: rt.resizeAction})
	}
	if len(actions) > 0 {
		rt.newSafeLibrary(l, "action.", actions)
		l.SetField(-2, "action")
	}

	if m.HasPermission(manifest.PermissionMatcherWait) {
		rt.newSafeLibrary(l, "matcher.", []lua.RegistryFunction{
			{Name: "contains_text", Function: textMatcher("contains_text", "contains_text", nil)},
			{Name: "screen_regex", Function: textMatcher("screen_regex", "screen_regex", rt)},
			{Name: "transcript_contains", Function: textMatcher("transcript_contains", "transcript_contains", nil)},
			{Name: "transcript_regex", Function: textMatcher("transcript_regex", "transcript_regex", rt)},
			{Name: "cursor_at", Function: cursorMatcher},
			{Name: "screen_stable", Function: stableMatcher},
			{Name: "process_exited", Function: func(l *lua.State) int {
				tagged(l, "process_exited")
				return 1
			}},
			{Name: "any", Function: listMatcher("any", "any")},
			{Name: "all", Function: listMatcher("all", "all")},
			{Name: "none", Function: listMatcher("none", "none")},
			{Name: "lua", Function: luaMatcher},
		})
		l.SetField(-2, "matcher")
	}

	rt.newSafeLibrary(l, "re.", []lua.RegistryFunction{
		{Name: "find", Function: rt.reFind},
		{Name: "match", Function: rt.reMatch},
		{Name: "gmatch", Function: rt.reGmatch},
	})
	l.SetField(-2, "re")
	rt.installText(l)
	rt.installDialog(l)
	for _, f := range []lua.RegistryFunction{
		{Name: "json_encode", Function: rt.jsonEncode},
		{Name: "json_decode", Function: rt.jsonDecode},
	} {
		l.PushGoFunction(rt.safe(f.Name, f.Function))
		l.SetField(-2, f.Name)
	}
	rt.installInvalidParams(l)
	l.PushGoFunction(rt.safe("require_state", rt.requireState))
	l.SetField(-2, "require_state")
	if !rt.sdk.inline {
		rt.installSDK(l)
	}
	l.SetGlobal("ptywright")
	return nil
}

func (rt *Runtime) newSafeLibrary(l *lua.State, prefix string, fns []lua.RegistryFunction) {
	l.CreateTable(0, len(fns))
	for _, f := range fns {
		l.PushGoFunction(rt.safe(prefix+f.Name, f.Function))
		l.SetField(-2, f.Name)
	}
}

// tagged pushes {type = typ}, the start of an action or matcher table in
// its JSON shape.
func tagged(l *lua.State, typ string) {
	l.CreateTable(0, 2)
	l.PushString(typ)
	l.SetField(-2, "type")
}

// Actions.

func textAction(fname string, t string) lua.Function {
	return func(l *lua.State) int {
		s := CheckString(l, fname, 1)
		tagged(l, string(t))
		l.PushString(s)
		l.SetField(-2, "value")
		return 1
	}
}

func bareAction(t string) lua.Function {
	return func(l *lua.State) int {
		tagged(l, string(t))
		return 1
	}
}

// namedAction builds an action whose value is a name that parse must accept
// (a key, a signal); a bad name is an argument error listing the valid ones.
func namedAction(fname string, t string, parse func(string) error) lua.Function {
	return func(l *lua.State) int {
		name := CheckString(l, fname, 1)
		if err := parse(name); err != nil {
			ArgError(l, fname, 1, err.Error())
		}
		tagged(l, string(t))
		l.PushString(name)
		l.SetField(-2, "value")
		return 1
	}
}

func (rt *Runtime) resizeAction(l *lua.State) int {
	rows, cols := CheckInt(l, "resize", 1), CheckInt(l, "resize", 2)
	if arg, err := rt.host.CheckSize(rows, cols); err != nil {
		ArgError(l, "resize", arg, err.Error())
	}
	tagged(l, "resize")
	l.CreateTable(0, 2)
	l.PushInteger(rows)
	l.SetField(-2, "rows")
	l.PushInteger(cols)
	l.SetField(-2, "cols")
	l.SetField(-2, "value")
	return 1
}

func markAction(l *lua.State) int {
	label := CheckString(l, "mark_transcript", 1)
	if label == "" {
		ArgError(l, "mark_transcript", 1, "label must not be empty")
	}
	tagged(l, "mark_transcript")
	l.CreateTable(0, 1)
	l.PushString(label)
	l.SetField(-2, "label")
	l.SetField(-2, "value")
	return 1
}

// Matchers.

// textMatcher builds the four text kinds; rt, when set, compiles the value
// as a regular expression so a bad one fails where it is written.
func textMatcher(fname string, t string, rt *Runtime) lua.Function {
	return func(l *lua.State) int {
		s := CheckString(l, fname, 1)
		if rt != nil {
			rt.regex(l, fname, 1, s)
		} else if s == "" {
			ArgError(l, fname, 1, "text must not be empty")
		}
		tagged(l, string(t))
		l.PushString(s)
		l.SetField(-2, "value")
		return 1
	}
}

func cursorMatcher(l *lua.State) int {
	row, col := CheckInt(l, "cursor_at", 1), CheckInt(l, "cursor_at", 2)
	if row < 0 {
		ArgError(l, "cursor_at", 1, "row must not be negative")
	}
	if col < 0 {
		ArgError(l, "cursor_at", 2, "col must not be negative")
	}
	tagged(l, "cursor_at")
	l.CreateTable(0, 2)
	l.PushInteger(row)
	l.SetField(-2, "row")
	l.PushInteger(col)
	l.SetField(-2, "col")
	l.SetField(-2, "value")
	return 1
}

func stableMatcher(l *lua.State) int {
	ms := CheckInt(l, "screen_stable", 1)
	if ms < 0 {
		ArgError(l, "screen_stable", 1, "min_ms must not be negative")
	}
	tagged(l, "screen_stable")
	l.CreateTable(0, 1)
	l.PushInteger(ms)
	l.SetField(-2, "min_ms")
	l.SetField(-2, "value")
	return 1
}

// listMatcher builds any/all from a list of matcher tables, copied so a
// later change to the caller's list does not change the matcher.
func listMatcher(fname string, t string) lua.Function {
	return func(l *lua.State) int {
		CheckTable(l, fname, 1)
		n := l.RawLength(1)
		if n == 0 {
			ArgError(l, fname, 1, "needs at least one matcher")
		}
		tagged(l, string(t))
		l.CreateTable(n, 0)
		for i := 1; i <= n; i++ {
			l.RawGetInt(1, i)
			if !l.IsTable(-1) {
				ArgError(l, fname, 1, "element "+strconv.Itoa(i)+" is a "+lua.TypeNameOf(l, -1)+", not a matcher table")
			}
			l.RawSetInt(-2, i)
		}
		l.SetField(-2, "value")
		return 1
	}
}

func luaMatcher(l *lua.State) int {
	plugin := CheckString(l, "lua", 1)
	predicate := CheckString(l, "lua", 2)
	if plugin == "" {
		ArgError(l, "lua", 1, "plugin name must not be empty")
	}
	if predicate == "" {
		ArgError(l, "lua", 2, "predicate name must not be empty")
	}
	if !l.IsNoneOrNil(3) && !l.IsTable(3) {
		ArgError(l, "lua", 3, "table or nil expected, got "+lua.TypeNameOf(l, 3))
	}
	tagged(l, "lua")
	l.CreateTable(0, 3)
	l.PushString(plugin)
	l.SetField(-2, "plugin")
	l.PushString(predicate)
	l.SetField(-2, "predicate")
	if l.IsTable(3) {
		l.PushValue(3)
		l.SetField(-2, "params")
	}
	l.SetField(-2, "value")
	return 1
}

// Regular expressions (Go RE2 syntax), for what Lua patterns cannot say
// (alternation, counted repetition) with linear-time matching.

// reSubject reads the subject and an optional 1-based init as string.find
// takes it; ok is false when init lies past the end.
func (rt *Runtime) reSubject(l *lua.State, fname string, withInit bool) (s string, re *regexp.Regexp, from int, ok bool) {
	s = CheckString(l, fname, 1)
	re = rt.regex(l, fname, 2, CheckString(l, fname, 2))
	init := 1
	if withInit {
		init = OptInt(l, fname, 3, 1)
	}
	switch {
	case init < -len(s):
		init = 1
	case init < 0:
		init = len(s) + init + 1
	case init == 0:
		init = 1
	}
	if init > len(s)+1 {
		return s, re, 0, false
	}
	rt.budget.chargeBytes(l, len(s)-(init-1))
	return s, re, init - 1, true
}

// pushSubmatches pushes the groups of a match, or the whole match when the
// expression has none; a group that took no part is nil.
func pushSubmatches(l *lua.State, s string, loc []int, whole bool) int {
	groups := len(loc)/2 - 1
	if groups == 0 {
		if !whole {
			return 0
		}
		l.PushString(s[loc[0]:loc[1]])
		return 1
	}
	lua.CheckStackWithMessage(l, groups, "too many captures")
	for g := 1; g <= groups; g++ {
		if loc[2*g] < 0 {
			l.PushNil()
		} else {
			l.PushString(s[loc[2*g]:loc[2*g+1]])
		}
	}
	return groups
}

// findFrom returns the submatch offsets, in s, of re's first match in
// s[from:]; nil if none.
func findFrom(re *regexp.Regexp, s string, from int) []int {
	loc := re.FindStringSubmatchIndex(s[from:])
	for i := range loc {
		if loc[i] >= 0 {
			loc[i] += from
		}
	}
	return loc
}

// reFind is ptywright.re.find(s, re [, init]): the 1-based inclusive
// bounds of the first match at or after init, then its groups; nil if
// none.
func (rt *Runtime) reFind(l *lua.State) int {
	s, re, from, ok := rt.reSubject(l, "re.find", true)
	if !ok {
		l.PushNil()
		return 1
	}
	loc := findFrom(re, s, from)
	if loc == nil {
		l.PushNil()
		return 1
	}
	l.PushInteger(loc[0] + 1)
	l.PushInteger(loc[1])
	return 2 + pushSubmatches(l, s, loc, false)
}

// reMatch is ptywright.re.match(s, re [, init]): the groups of the first
// match, or the whole match when re has no group; nil if none.
func (rt *Runtime) reMatch(l *lua.State) int {
	s, re, from, ok := rt.reSubject(l, "re.match", true)
	if !ok {
		l.PushNil()
		return 1
	}
	loc := findFrom(re, s, from)
	if loc == nil {
		l.PushNil()
		return 1
	}
	return pushSubmatches(l, s, loc, true)
}

// reGmatch is ptywright.re.gmatch(s, re): an iterator over the successive
// non-overlapping matches, yielding groups or whole matches.
func (rt *Runtime) reGmatch(l *lua.State) int {
	s, re, _, _ := rt.reSubject(l, "re.gmatch", false)
	// Every match is a slice of offsets, so an expression matching
	// everywhere (the empty one) makes the list several times the size of
	// its subject. A list the size of the memory budget is over it
	// whatever else the state holds: stop collecting there.
	perMatch := 24 + 16*(re.NumSubexp()+1)
	most := int(rt.budget.limits.Memory)/perMatch + 1
	all := re.FindAllStringSubmatchIndex(s, most)
	if len(all) == most {
		rt.budget.tripMemory(l)
	}
	rt.budget.alloc(l, len(all)*perMatch)
	rt.budget.charge(l, int64(len(all)))
	next := 0
	l.PushGoFunction(rt.safe("re.gmatch iterator", func(l *lua.State) int {
		if next >= len(all) {
			return 0
		}
		loc := all[next]
		next++
		return pushSubmatches(l, s, loc, true)
	}))
	return 1
}

// JSON.

func (rt *Runtime) jsonEncode(l *lua.State) int {
	conv := rt.newLuaToGo(l)
	raw, err := conv.json(1, "value")
	rt.budget.charge(l, int64(conv.nodes*nodeCost))
	if err != nil {
		ArgError(l, "json_encode", 1, err.Error())
	}
	rt.budget.chargeBytes(l, len(raw))
	l.PushString(string(raw))
	return 1
}

func (rt *Runtime) jsonDecode(l *lua.State) int {
	s := CheckString(l, "json_decode", 1)
	rt.budget.chargeBytes(l, len(s))
	l.SetTop(1)
	v, err := decodeJSON([]byte(s))
	if err != nil {
		ArgError(l, "json_decode", 1, err.Error())
	}
	rt.budget.charge(l, int64(countNodes(v)*nodeCost))
	if err := pushDecoded(l, v, 0); err != nil {
		ArgError(l, "json_decode", 1, err.Error())
	}
	return 1
}
