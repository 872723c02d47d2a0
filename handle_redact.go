package ptywright

import "ptywright/contract"

// What an ExtensionHandle hands out (states, explanations, projections) is
// redacted here, with the redactor it was given (HandleOptions.Redactor,
// else its session's): a caller passes it on as it is.

// redactedState is st, classified on the raw screen snap, as the handle
// hands it out: redacted with the handle's redactor, which also hides
// every piece of a secret that snap's rows show, for a plugin that quotes
// them laid out anew.
func (h *ExtensionHandle) redactedState(st StateSnapshot, snap ScreenSnapshot) StateSnapshot {
	cols := snap.Size.Cols
	return st.redacted(h.red.quotingScreen(snap.PlainText, cols), cols)
}

// redacted returns st with what a plugin may have quoted from the screen
// redacted: its evidence, the strings in its metadata, and its
// assessment's operator excerpt and anomaly messages. cols is the width of
// the screen classified (0: unknown): quoted rows are read as its rows
// (redactValue). nil r means DefaultRedactor; one that hides nothing
// returns st as it is. st itself is not written to.
func (st StateSnapshot) redacted(r *Redactor, cols int) StateSnapshot {
	if !r.Enabled() {
		return st
	}
	st.Evidence = redactScreenText(st.Evidence, cols, r)
	if st.Metadata != nil {
		st.Metadata, _ = redactValue(st.Metadata, r, cols).(map[string]any)
	}
	if a := st.Assessment; a != nil {
		as := *a
		as.OperatorBlockedExcerpt = redactScreenText(a.OperatorBlockedExcerpt, cols, r)
		as.Anomalies = redactAnomalies(a.Anomalies, cols, r)
		if pm := a.ParserMetadata; pm != nil {
			m := *pm
			m.Anomalies = redactAnomalies(pm.Anomalies, cols, r)
			as.ParserMetadata = &m
		}
		st.Assessment = &as
	}
	return st
}

// redactAnomalies returns a copy of as with its messages redacted (a
// plugin's may quote the row it did not recognise); nil stays nil and
// empty stays empty.
func redactAnomalies(as []contract.Anomaly, cols int, r *Redactor) []contract.Anomaly {
	if as == nil {
		return nil
	}
	out := make([]contract.Anomaly, len(as))
	for i, a := range as {
		a.Message = redactScreenText(a.Message, cols, r)
		out[i] = a
	}
	return out
}

// redactExplanation returns a copy of x with its texts (evidence, reasons,
// anomaly messages) redacted by r: nil means DefaultRedactor, NoRedaction
// returns x as it is. Quoted rows are read as the rows of a screen
// x.ScreenCols wide, so a secret the terminal wrapped across them is
// hidden on every row, and the pieces of the secrets x.Screen shows are
// hidden wherever a text quotes them laid out anew. The copy carries no
// Screen.
func redactExplanation(x contract.Explanation, r *Redactor) contract.Explanation {
	if !r.Enabled() {
		return x
	}
	cols := x.ScreenCols
	r = r.quotingScreen(x.Screen, cols)
	x.Screen = ""
	x.Evidence = redactScreenText(x.Evidence, cols, r)
	if x.Considered != nil {
		c := make([]contract.ConsideredState, len(x.Considered))
		for i, cs := range x.Considered {
			cs.Reason = redactScreenText(cs.Reason, cols, r)
			c[i] = cs
		}
		x.Considered = c
	}
	x.Anomalies = redactAnomalies(x.Anomalies, cols, r)
	if x.Parser != nil {
		pm := *x.Parser
		pm.Anomalies = redactAnomalies(pm.Anomalies, cols, r)
		x.Parser = &pm
	}
	return x
}

// redactProjection redacts the texts of a projection of a screen cols
// wide with q, a redactor that hides the pieces of the secrets that
// screen shows: the dialog is the screen laid out anew (quotingScreen).
func redactProjection(p contract.DialogProjection, cols int, q *Redactor) contract.DialogProjection {
	if !q.Enabled() {
		return p
	}
	p.RawText = redactScreenText(p.RawText, cols, q)
	p.NormalizedText = q.Redact(p.NormalizedText)
	p.DialogText = q.Redact(p.DialogText)
	p.Head, p.Tail = q.Redact(p.Head), q.Redact(p.Tail)
	p.Anomalies = redactAnomalies(p.Anomalies, 0, q)
	return p
}
