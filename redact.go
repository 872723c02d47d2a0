package ptywright

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"ptywright/internal/secrets"
)

// defaultRedactionReplacement replaces each redacted span when a policy
// names none.
const defaultRedactionReplacement = "[REDACTED]"

// Redaction: one rule, applied where data leaves the library.
//
// Everything the library hands out that shows what a program printed is
// redacted, and raw only when the caller asks for raw by name. A session
// redacts its reads with the redactor it was started with
// (Options.Redactor), an ExtensionHandle with its own
// (HandleOptions.Redactor) or else its session's; both default to
// DefaultRedactor. So a caller that hands a read on as it is cannot leak:
//
//   - screen snapshots (Session.Snapshot, RedactSnapshot), including cells
//     and scrollback: the rows are searched as one text, a row that fills
//     the width or that a program wrapped itself (secrets.Continues) as going
//     on in the next, so a wrapped secret is hidden on every row it covers;
//   - transcripts: Session.Transcript, the TranscriptTail of waits and
//     inspections, Session.OutputSince (the output stream, redacted as one
//     stream so a secret written in two pieces is hidden in both);
//   - wait evidence (WaitResult, WaitError, captures);
//   - everything an ExtensionHandle returns: plugin states (evidence,
//     metadata, the assessment's operator excerpt and anomalies), receipts,
//     wait results and errors, explanations, projections, inspections and
//     extractions; Inspect, ExplainRedactor and Extraction.Redactor choose
//     another redactor for one call;
//   - recordings (Options.RecordRedactor, else the session's; RecordRaw to
//     opt out);
//   - errors and diagnostics, with the default policy: the JSON-RPC
//     server's error messages and logs, the CLI's and plugins' log lines.
//
// Every parameter or field of type *Redactor follows the same rule: nil
// means the redactor of the session or handle read (DefaultRedactor where
// there is none), NoRedaction() (or a policy compiled with Enabled false)
// means raw. Over JSON-RPC the same reads take "redact": false and a
// "redaction" object, and notifications use the default policy. The only
// raw sinks are the ones named raw: Options.RawTranscriptPath,
// Options.Output and Screen (the live parser, also what Replay returns),
// which callers wire up themselves and redact with RedactSnapshot.
//
// The default patterns favour precision as much as recall (see
// internal/secrets): vendor keys, private key blocks, and credentials in
// assignments, auth headers and URLs when the value is plausibly a secret,
// not a path, placeholder, reference or word.

// RedactionPolicy says how to hide secrets in screen text, transcripts,
// notifications and error messages. The default patterns always apply when
// Enabled; the Extra* fields add caller-specific secrets for one read.
type RedactionPolicy struct {
	Enabled bool `json:"enabled"`
	// Replacement stands in for each redacted span; "" means
	// "[REDACTED]".
	Replacement string `json:"replacement,omitempty"`
	// ExtraLiterals are exact, case-sensitive strings replaced wherever they
	// occur.
	ExtraLiterals []string `json:"extra_literals,omitempty"`
	// ExtraRegexes are Go RE2 patterns; every non-empty match is replaced
	// whole.
	ExtraRegexes []string `json:"extra_regexes,omitempty"`
}

// DefaultRedactionPolicy is what reads use unless the caller opts out.
func DefaultRedactionPolicy() RedactionPolicy {
	return RedactionPolicy{Enabled: true, Replacement: defaultRedactionReplacement}
}

// Redactor applies a compiled RedactionPolicy. It is immutable after Compile
// and safe for concurrent use.
//
// A nil *Redactor means the default policy (DefaultRedactor), everywhere a
// *Redactor is taken: reads, waits, inspections, recordings, streams.
// Redacting nothing is always an explicit choice: NoRedaction, or a policy
// compiled with Enabled false.
type Redactor struct {
	enabled     bool
	replacement string
	literals    []string
	regexes     []*regexp.Regexp
}

// The parts of the default key = value pattern that the stream redactor's
// open-tail pattern reuses (redact_stream.go).
const (
	kvKey       = secrets.KVKey
	kvSeparator = secrets.KVSeparator
	authScheme  = secrets.AuthScheme
)

// Compile validates the policy and prepares it. Every extra is validated even
// when the policy is disabled, so a bad rule fails at once rather than the
// first time someone turns redaction on. Errors are *FieldError wrapping
// ErrInvalidRedaction, named like "extra_regexes[2]".
func (p RedactionPolicy) Compile() (*Redactor, error) {
	r := &Redactor{
		enabled:     p.Enabled,
		replacement: p.Replacement,
	}
	if r.replacement == "" {
		r.replacement = defaultRedactionReplacement
	}
	for i, lit := range p.ExtraLiterals {
		if lit == "" {
			return nil, &FieldError{Field: fmt.Sprintf("extra_literals[%d]", i), Reason: "must not be empty", Err: ErrInvalidRedaction}
		}
	}
	r.literals = slices.Clone(p.ExtraLiterals)
	for i, expr := range p.ExtraRegexes {
		field := fmt.Sprintf("extra_regexes[%d]", i)
		if expr == "" {
			return nil, &FieldError{Field: field, Reason: "must not be empty", Err: ErrInvalidRedaction}
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, &FieldError{Field: field, Reason: err.Error(), Err: ErrInvalidRedaction}
		}
		r.regexes = append(r.regexes, re)
	}
	return r, nil
}

// defaultRedactor is built once; Redactor is immutable so sharing it is safe.
var defaultRedactor = sync.OnceValue(func() *Redactor {
	r, err := DefaultRedactionPolicy().Compile()
	if err != nil {
		panic("ptywright: default redaction policy does not compile: " + err.Error())
	}
	return r
})

// DefaultRedactor returns the shared Redactor for DefaultRedactionPolicy.
func DefaultRedactor() *Redactor { return defaultRedactor() }

// noRedaction is the shared disabled Redactor.
var noRedaction = &Redactor{replacement: defaultRedactionReplacement}

// NoRedaction returns the Redactor that hides nothing: pass it where a
// *Redactor is taken to opt into raw, unredacted text (trusted-local
// debugging). It is the only way to get raw text besides a policy compiled
// with Enabled false; nil always means the default policy.
func NoRedaction() *Redactor { return noRedaction }

// orDefault resolves nil to DefaultRedactor.
// or is r, or def when r is nil: a read that names no redactor gets its
// session's or handle's.
func (r *Redactor) or(def *Redactor) *Redactor {
	if r == nil {
		return def
	}
	return r
}

func (r *Redactor) orDefault() *Redactor {
	if r == nil {
		return DefaultRedactor()
	}
	return r
}

// Enabled reports whether r hides anything (nil: the default policy does).
func (r *Redactor) Enabled() bool { return r.orDefault().enabled }

// Redact returns s with every span from Spans replaced by the replacement. It
// returns s itself (no copy) when there is nothing to hide. A nil r redacts
// with the default policy.
func (r *Redactor) Redact(s string) string {
	r = r.orDefault()
	return secrets.Replace(s, r.Spans(s), r.replacement)
}

// replacementText is the text that stands in for each span.
func (r *Redactor) replacementText() string { return r.orDefault().replacement }

// Spans returns the sorted, non-overlapping byte ranges [start, end) of s that
// Redact replaces, overlapping or touching matches merged into one. The screen
// maps them back onto cells. A disabled Redactor returns nil; a nil one
// uses the default policy.
func (r *Redactor) Spans(s string) [][2]int {
	r = r.orDefault()
	if !r.enabled || s == "" {
		return nil
	}
	// A secret a program broke with a colour change or an erased typo is
	// found on the text as the terminal shows it.
	return secrets.ThroughEscapes(s, r.spans)
}

// spans is Spans on s as it is.
func (r *Redactor) spans(s string) [][2]int {
	var spans [][2]int
	spans = secrets.Spans(s, r.replacement, spans)
	for _, re := range r.regexes {
		for _, m := range re.FindAllStringIndex(s, -1) {
			if m[1] > m[0] {
				spans = append(spans, [2]int{m[0], m[1]})
			}
		}
	}
	for _, lit := range r.literals {
		for off := 0; ; {
			i := strings.Index(s[off:], lit)
			if i < 0 {
				break
			}
			spans = append(spans, [2]int{off + i, off + i + len(lit)})
			off += i + len(lit)
		}
	}
	return secrets.MergeSpans(spans)
}

// quotingScreen returns r extended to hide, as literals, every piece of a
// secret the rows of a raw screen (its text and width) show
// (secrets.ScreenPieces), for texts that quote the screen laid out anew: a
// plugin strips the prompt box's "❯ " and the continuation indents and
// joins the rows ("my key is sk-…-R\n5Kjp…"), so a secret the program
// wrapped is no longer split where the screen split it. r itself when it
// hides nothing or the screen shows no secret.
func (r *Redactor) quotingScreen(text string, cols int) *Redactor {
	r = r.orDefault()
	if !r.enabled {
		return r
	}
	return r.hiding(secrets.ScreenPieces(text, cols, r.Spans))
}

// hiding returns r extended to hide pieces as literals (r itself if none).
func (r *Redactor) hiding(pieces []string) *Redactor {
	if len(pieces) == 0 {
		return r
	}
	q := *r
	q.literals = append(slices.Clip(r.literals), pieces...)
	return &q
}

// redactValue returns a copy of a JSON-like value (what Lua plugins return,
// and the string slices and maps Go extensions use) with its strings and
// member names redacted. cols > 0 is the width of the screen the value may
// quote: its strings' lines, and a list of strings, are read as screen
// rows, so a secret the terminal soft-wrapped is hidden on each row.
func redactValue(v any, r *Redactor, cols int) any {
	return secrets.Tree{
		Text: func(s string) string { return redactScreenText(s, cols, r) },
		Rows: func(rows []string) []string { return redactScreenRows(rows, cols, r) },
		Key:  r.Redact,
	}.Value(v)
}
