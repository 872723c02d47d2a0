package luapattern

import (
	"errors"
	"fmt"
)

// Sentinel kinds of *Error, for errors.Is. Each groups messages Lua 5.2
// raises for the same kind of mistake.
var (
	// ErrMalformedPattern: a pattern ends with '%', a set misses its ']',
	// '%b' lacks its two characters, or '%f' is not followed by '['.
	ErrMalformedPattern = errors.New("malformed pattern")
	// ErrInvalidCapture: a back-reference or replacement names a capture
	// that does not exist or is not closed, a ')' closes nothing, or a
	// capture is still open when the match ends.
	ErrInvalidCapture = errors.New("invalid capture")
	// ErrTooManyCaptures: more than MaxCaptures captures are open at once.
	ErrTooManyCaptures = errors.New("too many captures")
	// ErrTooComplex: the matcher recursed deeper than MaxMatchDepth (Lua's
	// MAXCCALLS), which a runaway pattern would otherwise turn into a Go
	// stack overflow.
	ErrTooComplex = errors.New("pattern too complex")
	// ErrInvalidReplacement: a gsub replacement string has a '%' that is
	// followed by neither a digit nor another '%'.
	ErrInvalidReplacement = errors.New("invalid replacement")
)

// Error is a pattern or replacement error. Msg is the exact text Lua 5.2
// raises, so a Lua binding can pass it through unchanged; Error() adds the
// offending pattern for Go callers.
type Error struct {
	// Pattern is the pattern as the caller gave it (anchor included).
	Pattern string
	// Msg is Lua's message, e.g. "malformed pattern (missing ']')".
	Msg string
	// Kind is one of the sentinel errors above.
	Kind error
}

// Error quotes the pattern after the message.
func (e *Error) Error() string {
	return fmt.Sprintf("luapattern: %s (pattern %q)", e.Msg, e.Pattern)
}

// Unwrap returns the sentinel kind so errors.Is works.
func (e *Error) Unwrap() error { return e.Kind }

// Lua's messages, shared by the matcher and the replacement expander.
const (
	msgEndsWithPercent   = "malformed pattern (ends with '%')"
	msgMissingBracket    = "malformed pattern (missing ']')"
	msgMissingBalanceArg = "malformed pattern (missing arguments to '%b')"
	msgMissingFrontier   = "missing '[' after '%f' in pattern"
	msgInvalidCapIndex   = "invalid capture index"
	msgInvalidPatCapture = "invalid pattern capture"
	msgUnfinishedCapture = "unfinished capture"
	msgTooManyCaptures   = "too many captures"
	msgTooComplex        = "pattern too complex"
	msgInvalidPercent    = "invalid use of '%' in replacement string"
)
