package ptywright

// RedactState returns st with what a plugin may have quoted from the screen
// redacted: its evidence, the strings in its metadata and the operator
// excerpt of its assessment. A nil r leaves it raw. Every face that hands a
// state out (rpc, the MCP server) calls it, so a state leaves redacted the
// same way whichever door it takes.
func RedactState(st StateSnapshot, r *Redactor) StateSnapshot {
	if r == nil {
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

// redactValue returns a copy of a JSON-like value with its strings redacted.
func redactValue(v any, r *Redactor) any {
	switch x := v.(type) {
	case string:
		return r.Redact(x)
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
