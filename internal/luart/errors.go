package luart

import (
	"errors"
	"fmt"
)

// Errors of the plugin host. Calls into a plugin fail with a *Error
// wrapping one of them (or the host's Cancelled / Timeout classes, see
// Classes, when the caller's context ended the call).
var (
	// ErrBudget: a call used up its instruction or wall-clock budget
	// (see Limits).
	ErrBudget = errors.New("ptywright: plugin budget exceeded")
	// ErrRuntime: the plugin raised a Lua error, returned something
	// the host cannot use, or does not export the function called.
	ErrRuntime = errors.New("ptywright: plugin runtime error")
)

// Error is a failed call into a plugin. Message reads like Lua's own
// ("echo/main.lua:12: attempt to index a nil value"), or is the JSON form
// of a non-string error value (error({code = 1}) gives `{"code":1}`).
type Error struct {
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
	// Err is the class: ErrRuntime, ErrBudget, or the host's Cancelled or
	// Timeout class, possibly joined with a more precise cause (the host's
	// InvalidParams, or the host's own error when its decoding of a result
	// failed).
	Err error
}

// Error reads "plugin <name>: <function>: <message>".
func (e *Error) Error() string {
	return fmt.Sprintf("plugin %s: %s: %s", e.Plugin, e.Function, e.Message)
}

// Unwrap exposes the class to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }
