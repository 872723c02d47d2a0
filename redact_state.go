package ptywright

// RedactState returns st with what a plugin may have quoted from the screen
// redacted with r (nil: DefaultRedactor; NoRedaction: unchanged): its
// evidence, every string in its metadata and the operator excerpt of its
// assessment. ExtensionHandle applies it to every state it returns.
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

// RedactOutcome returns o with its captured text, and that of the branches
// under it, redacted with r (nil: DefaultRedactor).
func RedactOutcome(o MatchOutcome, r *Redactor) MatchOutcome {
	if o.Capture != nil {
		c := r.Redact(*o.Capture)
		o.Capture = &c
	}
	if len(o.Matched) > 0 {
		subs := make([]MatchOutcome, len(o.Matched))
		for i, sub := range o.Matched {
			subs[i] = RedactOutcome(sub, r)
		}
		o.Matched = subs
	}
	return o
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
