package ptywright

import (
	"errors"
	"fmt"

	"ptywright/internal/engine"
)

// Engine names the terminal emulator that parses a Screen's bytes.
type Engine string

const (
	// EngineVTCore is ptywright's own emulator (internal/vtcore), the
	// default: held to tmux and xterm by the fidelity tests, and 60-150x
	// faster than x/vt.
	EngineVTCore Engine = "vtcore"
	// EngineXVT is charmbracelet/x/vt, the emulator of the design card and
	// the oracle of vtcore's differential tests. It departs from tmux and
	// xterm where vtcore does not (see internal/engine/xvt.go and README.md): a
	// resize cuts rows at the bottom, the alternate screen homes the cursor,
	// widths are grapheme widths whatever mode 2027 says, no title stack,
	// no SGR 21; and it parses 0.5-10 MB/s. A panic inside x/vt is
	// recovered and the bytes that caused it are dropped.
	EngineXVT Engine = "xvt"
)

// ErrInvalidEngine is wrapped by the error an unknown Engine name gives.
var ErrInvalidEngine = errors.New("ptywright: invalid engine")

// Validate reports an unknown engine name; "" is the default engine.
func (e Engine) Validate() error {
	switch e {
	case "", EngineVTCore, EngineXVT:
		return nil
	}
	return &FieldError{Field: "engine", Reason: fmt.Sprintf("must be %q or %q, got %q", EngineVTCore, EngineXVT, string(e)), Err: ErrInvalidEngine}
}

// newEngineOf returns the named engine (validated by the caller). onReply
// must not block (nil drops replies); it is called from Write.
func newEngineOf(kind Engine, rows, cols int, onReply func([]byte)) engine.Engine {
	if kind == EngineXVT {
		e := engine.NewXVT(rows, cols, onReply)
		e.RecoverPanics = true
		return e
	}
	return engine.NewVTCore(rows, cols, onReply)
}
