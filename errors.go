package ptywright

import (
	"errors"
	"fmt"

	"ptywright/internal/wire"
)

// Sentinel errors. Test them with errors.Is: the errors ptywright returns wrap
// them with context. The JSON-RPC server maps each to one error code.
var (
	// ErrTimeout: a wait's deadline passed before its matcher matched. The
	// returned error is a *WaitError carrying the last screen and transcript.
	ErrTimeout = errors.New("ptywright: timed out")
	// ErrCancelled: the caller's context was cancelled.
	ErrCancelled = errors.New("ptywright: cancelled")
	// ErrSessionClosed: the session was closed.
	ErrSessionClosed = errors.New("ptywright: session closed")
	// ErrProcessExited: the program has exited. Input or a signal sent
	// after the exit gets it, and so does a wait that can no longer match:
	// the output is all read, and neither the final screen and transcript
	// nor a stability window to come can satisfy its matcher (see
	// Session.Wait; a resize could still change the screen).
	ErrProcessExited = errors.New("ptywright: process exited")
	// ErrPermissionDenied: a plugin lacks the permission an operation needs.
	ErrPermissionDenied = errors.New("ptywright: permission denied")
	// ErrInvalidParams: a caller passed a malformed or missing argument.
	ErrInvalidParams = wire.ErrInvalidParams
	// ErrIntentRefused: the plugin declined an intent the screen does not
	// allow now (no dialog to approve, a composer that still holds text,
	// no turn to cancel). Nothing was written; the params may be right and
	// the same intent may succeed on a later screen.
	ErrIntentRefused = errors.New("ptywright: intent refused")
	// ErrUnsupported: this platform cannot do it yet. It also matches
	// errors.ErrUnsupported.
	ErrUnsupported = fmt.Errorf("ptywright: %w", errors.ErrUnsupported)
)
