package ptywright

// RedactState returns st with what a plugin may have quoted from the screen
// redacted: its evidence, the strings in its metadata and the operator
// excerpt of its assessment. nil r means DefaultRedactor, NoRedaction
// leaves it raw, as everywhere. ExtensionHandle returns its states through
// it, and every face that hands a state out (rpc, the MCP server) calls it,
// so a state leaves redacted the same way whichever door it takes.
func RedactState(st StateSnapshot, r *Redactor) StateSnapshot {
	if !r.Enabled() {
		return st
	}
	st.Evidence = r.Redact(st.Evidence)
	if st.Metadata != nil {
		st.Metadata, _ = redactValue(st.Metadata, r).(map[string]any)
	}
	if st.Assessment != nil && st.Assessment.OperatorBlockedExcerpt != "" {
		as := *st.Assessment
		as.OperatorBlockedExcerpt = r.Redact(as.OperatorBlockedExcerpt)
		st.Assessment = &as
	}
	return st
}

// redactValue returns a copy of a JSON-like value (what Lua plugins return,
// and the string slices and maps Go extensions use) with its strings
// redacted.
func redactValue(v any, r *Redactor) any {
	switch x := v.(type) {
	case string:
		return r.Redact(x)
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = r.Redact(e)
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(x))
		for k, e := range x {
			out[k] = r.Redact(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = redactValue(e, r)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(e, r)
		}
		return out
	}
	return v
}

// RedactOutcome returns a copy of a match outcome with what it quotes from
// the screen redacted, in every branch: captures, searched text, pattern
// and lua evidence. A nil outcome is returned as is; nil r means
// DefaultRedactor, NoRedaction returns o unchanged.
//
// A secret inside a pattern in escaped form (`sk\-abc`) is not recognised:
// a face that shows outcomes to a reader who did not write the matcher
// should leave patterns out.
func RedactOutcome(o *MatchOutcome, r *Redactor) *MatchOutcome {
	if o == nil || !r.Enabled() {
		return o
	}
	out := *o
	if o.Capture != nil {
		out.Capture = strPtr(r.Redact(*o.Capture))
	}
	out.Text = r.Redact(o.Text)
	out.Pattern = r.Redact(o.Pattern)
	if o.Evidence != nil {
		out.Evidence = redactValue(o.Evidence, r)
	}
	if o.Matched != nil {
		out.Matched = make([]MatchOutcome, len(o.Matched))
		for i := range o.Matched {
			out.Matched[i] = *RedactOutcome(&o.Matched[i], r)
		}
	}
	return &out
}

// RedactReceipt returns a receipt with the outcome in its evidence
// redacted (see RedactOutcome).
func RedactReceipt(rc Receipt, r *Redactor) Receipt {
	rc.Evidence = RedactOutcome(rc.Evidence, r)
	return rc
}
