package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"ptywright"
	"ptywright/asciicast"
	"ptywright/contract"
	"ptywright/manifest"
	"ptywright/plugins"
)

// ErrServerClosed is returned by Serve, ListenUnix and ServeConn once Close
// has been called, and by calls that need the registry after it.
var ErrServerClosed = errors.New("ptywright: server closed")

// classes maps the root package's sentinels (and the context errors) to
// JSON-RPC codes, first match wins. An *Error anywhere in the chain takes
// precedence over all of them; anything unmatched is an internal error.
// That includes a *luahost.Error of class luahost.ErrRuntime or
// luahost.ErrBudget: the plugin failed, not the caller (its message, redacted
// like every other, says where); unless the plugin raised
// ptywright.invalid_params, which joins ErrInvalidParams: the caller's
// params were wrong.
var classes = []struct {
	err   error
	class *Error
}{
	{ptywright.ErrTimeout, ErrTimeout},
	{ptywright.ErrCancelled, ErrCancelled},
	{ptywright.ErrSessionClosed, ErrSessionClosed},
	{ptywright.ErrProcessExited, ErrProcessExited},
	{ptywright.ErrPermissionDenied, ErrPermissionDenied},
	// Every bad-input sentinel of the root (ErrInvalidMatcher, ErrUnknownKey,
	// ErrFileExists, ...) is also ErrInvalidParams.
	{ptywright.ErrInvalidParams, ErrInvalidParams},
	{ptywright.ErrIntentRefused, ErrIntentRefused},
	// A gesture the program's mouse mode does not report: declined, as an
	// intent the screen does not allow now.
	{ptywright.ErrMouseNotEnabled, ErrIntentRefused},
	{ptywright.ErrCapacity, ErrCapacity},
	{ptywright.ErrDialogMismatch, ErrDialogMismatch},
	// The other packages' sentinels of bad input.
	{asciicast.ErrInvalid, ErrInvalidParams},
	{manifest.ErrInvalid, ErrInvalidParams},
	{manifest.ErrPathEscape, ErrInvalidParams},
	{plugins.ErrNotFound, ErrInvalidParams},
	{plugins.ErrExists, ErrInvalidParams},
	{plugins.ErrBuiltin, ErrInvalidParams},
	{context.DeadlineExceeded, ErrTimeout},
	{context.Canceled, ErrCancelled},
}

// classOf returns the JSON-RPC class of err and whether err already carries
// it (so its message need not be prefixed with the class name).
func classOf(err error) (class *Error, explicit bool) {
	class, explicit, _ = classAndSentinel(err)
	return class, explicit
}

// restated are the root sentinels whose class's message says what they
// say ("the program exited" for ErrProcessExited): on the wire their text
// is not repeated after it. The others (ErrInvalidAction under "invalid
// params") say more than their class and stay.
var restated = map[error]bool{
	ptywright.ErrTimeout: true, ptywright.ErrCancelled: true, ptywright.ErrSessionClosed: true,
	ptywright.ErrProcessExited: true, ptywright.ErrPermissionDenied: true, ptywright.ErrInvalidParams: true,
	ptywright.ErrIntentRefused: true, ptywright.ErrCapacity: true, ptywright.ErrDialogMismatch: true,
}

// classAndSentinel is classOf and the root sentinel that gave the class
// (nil when none did).
func classAndSentinel(err error) (class *Error, explicit bool, sentinel error) {
	var e *Error
	if errors.As(err, &e) {
		return e, true, nil
	}
	for _, c := range classes {
		if errors.Is(err, c.err) {
			return c.class, false, c.err
		}
	}
	return ErrInternal, false, nil
}

// codeOf returns the JSON-RPC code the server answers err with.
func codeOf(err error) int64 {
	c, _ := classOf(err)
	return c.Code
}

type dataError struct {
	err  error
	data any
}

func (e *dataError) Error() string { return e.err.Error() }
func (e *dataError) Unwrap() error { return e.err }

// withData attaches structured data to err: the server sends it as the
// error object's "data" member. The code still comes from err's class.
func withData(err error, data any) error {
	if err == nil {
		return nil
	}
	return &dataError{err: err, data: data}
}

// PermissionDenied is the error for a call whose plugin manifest lacks
// permission: code -32004 with data {method, required_permission}.
func PermissionDenied(method, permission string) error {
	err := fmt.Errorf("%w: %s requires the %s permission", ptywright.ErrPermissionDenied, method, permission)
	return withData(err, map[string]string{"method": method, "required_permission": permission})
}

// pluginLoadDenied is the error for plugin.load and plugin.unload on a server
// started without --allow-plugin-load: code -32004 with data
// {method, reason: "server_did_not_grant_plugin_load"}.
func pluginLoadDenied(method string) error {
	err := fmt.Errorf("%w: %s: the server was not started with plugin loading allowed", ptywright.ErrPermissionDenied, method)
	return withData(err, map[string]string{"method": method, "reason": "server_did_not_grant_plugin_load"})
}

// waitEvidence is the data of a wait that gave up: what the screen looked
// like at the end.
type waitEvidence struct {
	Snapshot       wireSnapshot `json:"snapshot"`
	TranscriptTail string       `json:"transcript_tail"`
	ElapsedMs      int64        `json:"elapsed_ms"`
	Sequence       uint64       `json:"sequence"`
	// Explanation accounts for the last classification, on adapter waits.
	Explanation *contract.Explanation `json:"explanation,omitempty"`
}

// capacityData is the data of -32007: which limit refused the session, and
// for the server's own caps its value and what is in use ("host" when the
// OS refused: processes, file descriptors, PTYs or memory ran out).
type capacityData struct {
	Limit string `json:"limit"`
	Max   int64  `json:"max,omitempty"`
	InUse int64  `json:"in_use,omitempty"`
}

// dialogMismatchData is the data of -32008: what differed, the state on
// screen now and the dialog it reports (absent when none).
type dialogMismatchData struct {
	Reason string            `json:"reason"`
	State  string            `json:"state"`
	Dialog *ptywright.Dialog `json:"dialog,omitempty"`
}

// inputData is the data of an error of input that did not all go in:
// written of bytes reached the program.
type inputData struct {
	Written int `json:"written"`
	Bytes   int `json:"bytes"`
}

// toWire converts a handler's error into the error object sent to the
// client. The message is redacted with the default policy: an error may
// quote a parameter or screen text holding a secret.
func toWire(err error) *Error {
	class, explicit, sentinel := classAndSentinel(err)
	msg := err.Error()
	if _, ok := errors.AsType[*ptywright.WaitError](err); ok {
		// The screen WaitError.Error appends after its first line is in
		// the data, in full.
		msg, _, _ = strings.Cut(msg, "\n")
	}
	if restated[sentinel] {
		// The class's message states what the sentinel says: a message
		// that ends with the sentinel ("text input after the exit: ptywright:
		// process exited") says it once.
		// A message that starts with it ("ptywright: permission denied:
		// adapter.send requires ...") likewise.
		switch s := sentinel.Error(); {
		case msg == s:
			msg = ""
		case strings.HasPrefix(msg, s+": "):
			msg = strings.TrimPrefix(msg, s+": ")
		default:
			msg = strings.TrimSuffix(msg, ": "+s)
		}
	}
	if !explicit {
		if msg == "" {
			msg = class.Message
		} else {
			msg = class.Message + ": " + msg
		}
	}
	out := &Error{Code: class.Code, Message: ptywright.DefaultRedactor().Redact(msg)}
	var data any
	var de *dataError
	var we *ptywright.WaitError
	var ce *ptywright.CapacityError
	var ie *ptywright.InputError
	var dm *ptywright.DialogMismatchError
	switch {
	case errors.As(err, &de):
		data = de.data
	case errors.As(err, &ce):
		data = capacityData{Limit: ce.Limit, Max: ce.Max, InUse: ce.InUse}
	case errors.As(err, &ie):
		data = inputData{Written: ie.Written, Bytes: ie.Len}
	case errors.As(err, &dm):
		// The dialog is redacted by the handle, like a read of the state.
		data = dialogMismatchData{Reason: dm.Reason, State: dm.State, Dialog: dm.Dialog}
	case errors.Is(err, ptywright.ErrCapacity):
		data = capacityData{Limit: "host"}
	case errors.As(err, &we):
		// Wait evidence is redacted by Session.Wait already.
		data = waitEvidence{Snapshot: toWireSnapshot(we.Snapshot), TranscriptTail: we.TranscriptTail, ElapsedMs: we.Elapsed.Milliseconds(), Sequence: we.Sequence, Explanation: we.Explanation}
	}
	if data != nil {
		if raw, mErr := json.Marshal(data); mErr == nil {
			out.Data = raw
		}
	}
	var re *receiptError
	if errors.As(err, &re) {
		out.Data = withMember(out.Data, "receipt", re.receipt)
	}
	return out
}

// receiptError is a turn that failed after its send was delivered: the
// receipt goes into the error's data beside what the data already carries
// (a timeout's evidence), so a client that retries knows its keys were
// typed.
type receiptError struct {
	err     error
	receipt ptywright.Receipt
}

func (e *receiptError) Error() string { return e.err.Error() }
func (e *receiptError) Unwrap() error { return e.err }

// withReceipt attaches rc (redacted by the handle, like a success
// reply's) to err when the send got as far as an intent.
func withReceipt(err error, rc ptywright.Receipt) error {
	if err == nil || rc.Intent == "" {
		return err
	}
	return &receiptError{err: err, receipt: rc}
}

// withMember adds name: v to the JSON object data (or to a new one). Data
// that is not an object is kept as it is: the class's shape wins.
func withMember(data json.RawMessage, name string, v any) json.RawMessage {
	obj := map[string]json.RawMessage{}
	if len(data) > 0 && json.Unmarshal(data, &obj) != nil {
		return data
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return data
	}
	obj[name] = raw
	if out, err := json.Marshal(obj); err == nil {
		return out
	}
	return data
}

// invalidParams names the offending field.
func invalidParams(field, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidParams, field, fmt.Sprintf(format, args...))
}

// redact makes text fit for a log line: diagnostics are redacted like
// everything else that leaves the process.
func redact(text string) string {
	return ptywright.DefaultRedactor().Redact(text)
}
