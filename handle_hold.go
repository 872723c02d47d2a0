package ptywright

import "fmt"

// HoldInput refuses every intent the handle would deliver, a caller's
// (Send, Turn) and its policy's, with err in a not_sent receipt, until
// HoldInput(nil): for a person who has taken the terminal. Reads (State,
// Wait, Explain) go on; a dialog the policy would answer meanwhile is
// decided at the first screen change after the release.
func (h *ExtensionHandle) HoldInput(err error) {
	if err == nil {
		h.hold.Store(nil)
		return
	}
	h.hold.Store(&err)
}

// inputHeld is HoldInput's error, nil when input is not held.
func (h *ExtensionHandle) inputHeld() error {
	if p := h.hold.Load(); p != nil {
		return *p
	}
	return nil
}

// refuseHeld fills rc as not_sent and returns the hold's error, wrapped in
// ErrIntentRefused, when input is held.
func (h *ExtensionHandle) refuseHeld(rc *Receipt) error {
	err := h.inputHeld()
	if err == nil {
		return nil
	}
	rc.Effect, rc.Reason = EffectNotSent, err.Error()
	return fmt.Errorf("%w: %w", ErrIntentRefused, err)
}
