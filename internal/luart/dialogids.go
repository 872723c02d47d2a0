package luart

import (
	"strconv"

	lua "ptywright/internal/golua"
)

// ptywright.dialog: what every plugin that reports permission dialogs
// needs to tell one dialog instance from the next (see ptywright.Dialog).
//
//	dialog.instances()   a numbering function f(key, idle) -> id or nil
//
// A dialog's key names what it asks (its tool, command, text): two
// dialogs asking the same thing have the same key. f(key, idle) returns
// the instance's id, key .. "-" .. n, where n moves on when a dialog with
// another key appears, or any dialog after an idle screen (the previous
// dialog was answered): a moved highlight, a redraw or a screen read twice
// keep the id. f(nil, idle) is a screen without a dialog; it returns nil,
// and when idle is true the next dialog is a new instance even with the
// same key. Each call of instances() starts its own count, so a plugin
// keeps one per instance (a file-level local).

// installDialog adds the dialog table to the ptywright table on top of
// the stack.
func (rt *Runtime) installDialog(l *lua.State) {
	rt.newSafeLibrary(l, "dialog.", []lua.RegistryFunction{
		{Name: "instances", Function: rt.dialogInstances},
	})
	l.SetField(-2, "dialog")
}

// dialogInstances is dialog.instances(): it pushes a fresh numbering
// function whose count and last key live in the Go closure.
func (rt *Runtime) dialogInstances(l *lua.State) int {
	count, last, have := 0, "", false
	l.PushGoFunction(rt.safe("dialog.instances()", func(l *lua.State) int {
		idle := l.ToBoolean(2)
		if l.IsNoneOrNil(1) {
			if idle {
				have = false
			}
			l.PushNil()
			return 1
		}
		key := CheckString(l, "dialog.instances()", 1)
		if !have || key != last {
			count++
			last, have = key, true
		}
		l.PushString(key + "-" + strconv.Itoa(count))
		return 1
	}))
	return 1
}
