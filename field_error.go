package ptywright

// FieldError names the input field that was rejected. Field is a dotted path
// in the wire form ("action.value.rows", "extra_regexes[2]") so a client can
// find its mistake; Err is the sentinel class (ErrInvalidAction,
// ErrInvalidSize, ...) matched with errors.Is.
type FieldError struct {
	Field  string
	Reason string
	Err    error
}

// Error reads "field: reason".
func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// Unwrap exposes the sentinel class to errors.Is and errors.As.
func (e *FieldError) Unwrap() error { return e.Err }
