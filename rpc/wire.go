package rpc

import (
	"encoding/json"
)

// JSON-RPC error codes: the five of JSON-RPC 2.0 and ptywright's own, as the
// JSON-RPC reference lists them.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeTimeout          = -32001
	CodeSessionClosed    = -32002
	CodePermissionDenied = -32004
	CodeCancelled        = -32005
	CodeIntentRefused    = -32006
	CodeCapacity         = -32007
	CodeDialogMismatch   = -32008
)

// Error is a JSON-RPC error object. The sentinel values below are matched by
// code with errors.Is, so a handler returns
//
//	fmt.Errorf("%w: session: required", rpc.ErrInvalidParams)
//
// and the client receives code -32602 with that whole text as the message.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error returns the message sent to the client.
func (e *Error) Error() string { return e.Message }

// Is matches any *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// The error classes, one per code.
var (
	// ErrParse: the frame is not valid JSON (or not valid UTF-8).
	ErrParse = &Error{Code: CodeParseError, Message: "parse error"}
	// ErrInvalidRequest: valid JSON that is not a JSON-RPC 2.0 request, an
	// empty batch, or a frame over MaxFrameBytes.
	ErrInvalidRequest = &Error{Code: CodeInvalidRequest, Message: "invalid request"}
	// ErrMethodNotFound: no such method.
	ErrMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "method not found"}
	// ErrInvalidParams: a missing, unknown or ill-typed parameter, an
	// unknown session id, or a value the root package rejected.
	ErrInvalidParams = &Error{Code: CodeInvalidParams, Message: "invalid params"}
	// ErrInternal: the server failed (a handler panicked, a child could not
	// be started for a reason that is not the caller's).
	ErrInternal = &Error{Code: CodeInternalError, Message: "internal error"}
	// ErrTimeout: a wait's deadline passed; data carries the last evidence.
	ErrTimeout = &Error{Code: CodeTimeout, Message: "timeout"}
	// ErrSessionClosed: the session was closed while the call used it.
	ErrSessionClosed = &Error{Code: CodeSessionClosed, Message: "session closed"}
	// ErrProcessExited: input or a signal came after the program exited,
	// or a wait can no longer match since it did (data carries the last
	// evidence, as for a timeout). It shares ErrSessionClosed's code
	// (errors.Is matches either) and says what happened.
	ErrProcessExited = &Error{Code: CodeSessionClosed, Message: "the program exited"}
	// ErrPermissionDenied: a plugin or the server did not grant the call;
	// data says what was missing.
	ErrPermissionDenied = &Error{Code: CodePermissionDenied, Message: "permission denied"}
	// ErrCancelled: the call was cancelled (its connection or the server
	// closed, or a client cancelled it).
	ErrCancelled = &Error{Code: CodeCancelled, Message: "cancelled"}
	// ErrIntentRefused: the plugin declined an intent the screen does not
	// allow now (no dialog to approve, a composer that still holds text);
	// nothing was written and the params may be right.
	ErrIntentRefused = &Error{Code: CodeIntentRefused, Message: "intent refused"}
	// ErrCapacity: no room for another session: the server's cap on
	// sessions or memory, or a limit of the host (processes, file
	// descriptors, PTYs). Nothing was started and nothing running was
	// touched; data says which limit ({limit, max, in_use}, or {limit:
	// "host"}).
	ErrCapacity = &Error{Code: CodeCapacity, Message: "at capacity"}
	// ErrDialogMismatch: an answer (approve, approve_always, deny,
	// choose_option) met another dialog than the caller's dialog_id or the
	// one it was planned on, or would choose another option than the one
	// it means. Nothing was written; data is the dialog as it is now
	// ({reason, state, dialog}).
	ErrDialogMismatch = &Error{Code: CodeDialogMismatch, Message: "dialog mismatch"}
)

const wireVersion = "2.0"

// nullID is the id of a response to a request whose id could not be read.
var nullID = json.RawMessage("null")

// wireResponse is an error response as sent (results are spliced in by
// encodeResponse).
type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *Error          `json:"error"`
}

// wireNotification is a server-originated notification.
type wireNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}
