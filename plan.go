package ptywright

// ActionPlan is what an intent asks the host to do.
type ActionPlan struct {
	Actions []Action `json:"actions"`
	// LastIntent, when present, replaces the remembered intent; an empty
	// string clears it. Absent keeps it.
	LastIntent *string `json:"last_intent,omitempty"`
	// Expect is the change the actions should cause; with it the intent's
	// Receipt says confirmed or ignored instead of unverified.
	Expect *Expectation `json:"expect,omitempty"`
	// Resend says the actions are safe to send a second time when the
	// expected change is not seen (e.g. typing into an empty prompt, not
	// moving a selection).
	Resend bool `json:"resend,omitempty"`
	// Retry, when set, is what to send instead on that second attempt,
	// e.g. only the Enter of a paste-then-Enter whose Enter a program
	// dropped. It implies Resend.
	Retry []Action `json:"retry,omitempty"`
	// Await holds the keys until the screen is one the plugin knows takes
	// them (e.g. a prompt only into a composer that is ready, never into a
	// start-up screen or one the plugin does not recognise). When the
	// screen gets there, the intent is planned again on that screen; when
	// it does not within the window, nothing is written and the receipt
	// says not_sent and why. The keys go only to such a screen: when it
	// moves on while they wait for it to settle (input readiness), they
	// await it again (at most three times, then not_sent).
	Await *InputAwait `json:"await,omitempty"`
	// Answer, on a plan that answers a dialog, names the dialog and the
	// option the keys choose: the host checks them against the screen at
	// the moment of the key and writes nothing when they differ
	// (ErrDialogMismatch).
	Answer *DialogAnswer `json:"answer,omitempty"`
}

// InputAwait is an ActionPlan's Await.
type InputAwait struct {
	// States are the states whose screens take the keys.
	States []string `json:"states"`
	// WithinMs is how long to wait for one of them; 0 means 10 s.
	WithinMs int64 `json:"within_ms,omitempty"`
}
