package luart

import (
	"strings"

	lua "ptywright/internal/golua"
)

// Intent helpers: what every screen-driving adapter's intents need.
//
//	ptywright.require_state(intent, state, allowed)  refuses (ptywright.refuse) unless state is one of allowed
//	action.key_name(name)                            the host's key for a person's name of it (or nil), and the folded name
//	action.select(from, to)                          the keys that move a list's highlight from row from to row to, then Enter
//
// key_name folds case, turns "-", "+" and spaces into "_", reads "^c" and
// "c_c" as "ctrl_c", and knows the usual short names (esc, return, bs,
// del, pgup, pgdn, ins, backtab...): "Shift-Tab" is "shift_tab", "Esc" is
// "escape". A name that is still no key of the host's is nil, so the
// plugin decides (type it as text, or refuse); the second result is the
// folded name either way, for names of the plugin's own ("ctrl_j" as a
// newline). action.key_name and
// action.select come with the action table (the input.write permission).

// keyAliases maps the short names people use to the host's key names,
// after folding.
var keyAliases = map[string]string{
	"esc": "escape", "return": "enter", "ret": "enter", "cr": "enter", "ctrl_m": "enter",
	"bs": "backspace", "ctrl_h": "backspace", "del": "delete", "ctrl_i": "tab",
	"s_tab": "shift_tab", "backtab": "shift_tab", "btab": "shift_tab",
	"pgup": "page_up", "pageup": "page_up", "pgdn": "page_down", "pagedown": "page_down",
	"ins": "insert", "arrow_up": "up", "arrow_down": "down", "arrow_left": "left", "arrow_right": "right",
}

// foldKeyName is key_name's folding, before the host's check.
func foldKeyName(name string) string {
	k := strings.ToLower(strings.TrimSpace(name))
	k = strings.Map(func(r rune) rune {
		if r == '-' || r == '+' || r == ' ' {
			return '_'
		}
		return r
	}, k)
	if len(k) == 2 && k[0] == '^' && isASCIILetter(k[1]) {
		k = "ctrl_" + k[1:]
	}
	if len(k) == 3 && strings.HasPrefix(k, "c_") && isASCIILetter(k[2]) {
		k = "ctrl_" + k[2:]
	}
	if a, ok := keyAliases[k]; ok {
		k = a
	}
	return k
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' }

// actionKeyName is action.key_name(name): the host's key name or nil,
// and the folded name either way (for a plugin's own names, such as a
// newline key the host has no name for).
func (rt *Runtime) actionKeyName(l *lua.State) int {
	k := foldKeyName(CheckString(l, "key_name", 1))
	if rt.host.ParseKey(k) != nil {
		l.PushNil()
	} else {
		l.PushString(k)
	}
	l.PushString(k)
	return 2
}

// actionSelect is action.select(from, to): |to - from| presses of down
// (or up), then enter, as an array of key actions.
func actionSelect(l *lua.State) int {
	from, to := CheckInt(l, "select", 1), CheckInt(l, "select", 2)
	if from < 1 || to < 1 {
		ArgError(l, "select", 1, "rows count from 1")
	}
	key, n := "down", to-from
	if n < 0 {
		key, n = "up", -n
	}
	if n > 1000 {
		ArgError(l, "select", 2, "more than 1000 rows away")
	}
	l.CreateTable(n+1, 0)
	for i := 1; i <= n; i++ {
		pushKeyAction(l, key)
		l.RawSetInt(-2, i)
	}
	pushKeyAction(l, "enter")
	l.RawSetInt(-2, n+1)
	return 1
}

// pushKeyAction pushes {type = "key", value = key}.
func pushKeyAction(l *lua.State, key string) {
	tagged(l, "key")
	l.PushString(key)
	l.SetField(-2, "value")
}

// requireState is ptywright.require_state(intent, state, allowed).
func (rt *Runtime) requireState(l *lua.State) int {
	intent := CheckString(l, "require_state", 1)
	state, _ := stringAt(l, 2)
	CheckTable(l, "require_state", 3)
	var allowed []string
	for i := 1; ; i++ {
		l.RawGetInt(3, i)
		s, ok := stringAt(l, -1)
		l.Pop(1)
		if !ok {
			break
		}
		if s == state && !l.IsNoneOrNil(2) {
			return 0
		}
		allowed = append(allowed, s)
	}
	shown := state
	if l.IsNoneOrNil(2) {
		shown = "nil"
	}
	l.SetTop(0)
	l.PushString(intent + ": not possible in state " + shown + " (needs " + strings.Join(allowed, " or ") + ")")
	return rt.raiseClassed(l, raisedClasses[1])
}
