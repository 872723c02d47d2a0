package ptywright

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// DefaultRedactionReplacement replaces each redacted span.
const DefaultRedactionReplacement = "[REDACTED]"

// ErrInvalidRedaction is wrapped by RedactionPolicy.Compile errors.
var ErrInvalidRedaction = errors.New("invalid redaction policy")

// RedactionPolicy says how to hide secrets in screen text, transcripts,
// notifications and error messages. The default patterns always apply when
// Enabled; the Extra* fields add caller-specific secrets for one read.
type RedactionPolicy struct {
	Enabled bool `json:"enabled"`
	// Replacement stands in for each redacted span; "" means
	// DefaultRedactionReplacement.
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
	return RedactionPolicy{Enabled: true, Replacement: DefaultRedactionReplacement}
}

// Redactor applies a compiled RedactionPolicy. It is immutable after Compile
// and safe for concurrent use; a nil *Redactor redacts nothing.
type Redactor struct {
	enabled     bool
	replacement string
	builtin     *builtinRegexps // shared default patterns
	literals    []string
	regexes     []*regexp.Regexp
}

// Compile validates the policy and prepares it. Every extra is validated even
// when the policy is disabled, so a bad rule fails at once rather than the
// first time someone turns redaction on. Errors are *FieldError wrapping
// ErrInvalidRedaction, named like "extra_regexes[2]".
func (p RedactionPolicy) Compile() (*Redactor, error) {
	r := &Redactor{
		enabled:     p.Enabled,
		replacement: p.Replacement,
		builtin:     builtinPatterns(),
	}
	if r.replacement == "" {
		r.replacement = DefaultRedactionReplacement
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

// Redact returns s with every span from Spans replaced by the replacement. It
// returns s itself (no copy) when there is nothing to hide.
func (r *Redactor) Redact(s string) string {
	spans := r.Spans(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(spans)*len(r.replacement))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(r.replacement)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// Replacement returns the text that stands in for each span.
func (r *Redactor) Replacement() string {
	if r == nil {
		return DefaultRedactionReplacement
	}
	return r.replacement
}

// Spans returns the sorted, non-overlapping byte ranges [start, end) of s that
// Redact replaces, overlapping or touching matches merged into one. The screen
// maps them back onto cells. A nil or disabled Redactor returns nil.
func (r *Redactor) Spans(s string) [][2]int {
	if r == nil || !r.enabled || s == "" {
		return nil
	}
	var spans [][2]int
	spans = r.builtinSpans(s, spans)
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
	return mergeSpans(spans)
}

// mergeSpans sorts spans and merges those that overlap or touch, so each
// merged run becomes a single replacement.
func mergeSpans(spans [][2]int) [][2]int {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp[0] <= last[1] {
			last[1] = max(last[1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}

// The default patterns. Each one is matched anchored at a position the
// trigger scan proposes (see builtinSpans), so a regexp only ever runs over
// the few bytes of a candidate match, never over the whole text. Capture
// groups surround only the part to hide, so keys, separators and auth schemes
// stay readable ("API_KEY=[REDACTED]", "Bearer [REDACTED]"). None of them can
// cross a line break.
const (
	// Bearer <token>: keep the word, hide the token (RFC 6750 charset).
	bearerPattern = `^(?i:bearer)[ \t]+([A-Za-z0-9._~+/-]+=*)`
	// OpenAI / Anthropic style keys: sk-, sk-proj-, sk-ant-api03-, ...
	skPattern = `^(sk-[A-Za-z0-9_-]{16,})`
	// AWS access key ids (long-term AKIA, temporary ASIA).
	awsPattern = `^((?:AKIA|ASIA)[A-Z0-9]{16})\b`
	// key = value, where the key is an identifier containing a secret word
	// that ends a _/- separated segment: API_KEY, x-api-key, GITHUB_TOKEN,
	// --password, client_secret, AWS_SECRET_ACCESS_KEY. "max_tokens" and
	// "tokenizer" do not qualify. The word may start mid-identifier so that
	// a key glued to an escape sequence ("\x1b[1mAPI_KEY=") still counts.
	kvPattern = `^` + kvKey + kvSeparator + authScheme + kvValue
	kvKey     = `(?i:[a-z0-9_-]*?(?:api[_-]?key|apikey|token|secret|passw(?:or)?d|passphrase|authorization)(?:[_-][a-z0-9]+)*)`
	// Closing quote of a quoted key (also JSON-escaped), then = : or :=.
	kvSeparator = `\\?["']?[ \t]*(?::=|[:=])[ \t]*`
	// A recognised auth scheme before the value stays visible and the
	// credential after it is hidden ("Authorization: Basic [REDACTED]",
	// "token: Bearer [REDACTED]"); without this the scheme word would be
	// taken as the whole value and the credential would leak.
	authScheme = `(?i:(?:basic|bearer|digest|negotiate|token)[ \t]+)?`
	// The value: the inside of a quoted string, or a bare run up to
	// whitespace, a quote or a list/query separator. Control characters end
	// it too, so an escape sequence after a secret in raw output survives.
	kvValue = `(?:\\?"([^"\\\x00-\x1f\x7f]+)|'([^'\x00-\x1f\x7f]+)|([^\s"'` + "`" + `,;&\x00-\x1f\x7f]+))`
)

type builtinRegexps struct{ bearer, sk, aws, kv *regexp.Regexp }

var builtinPatterns = sync.OnceValue(func() *builtinRegexps {
	return &builtinRegexps{
		bearer: regexp.MustCompile(bearerPattern),
		sk:     regexp.MustCompile(skPattern),
		aws:    regexp.MustCompile(awsPattern),
		kv:     regexp.MustCompile(kvPattern),
	}
})

// trigger identifies which default pattern a trigger word starts.
type trigger uint8

const (
	trigNone   trigger = iota
	trigBearer         // "bearer" at a word boundary
	trigSK             // "sk-" at a word boundary
	trigAWS            // "akia"/"asia" at a word boundary
	trigKV             // a secret word somewhere in an identifier
)

// builtinSpans appends the spans of the default patterns in s.
//
// A byte scan finds trigger words (ASCII case-insensitive); each trigger
// proposes one anchored start: the trigger itself for bearer, sk- and AWS
// keys, and the start of the enclosing identifier for key = value. Every
// trigger is tried, even inside an earlier match, and the caller merges the
// spans: a global regexp search would instead skip a secret whose key was
// swallowed by the previous match ("Bearer passwd = x").
func (r *Redactor) builtinSpans(s string, spans [][2]int) [][2]int {
	re := r.builtin
	lineEnd := -1 // end of the line containing the current trigger
	triedKV := -1 // identifier start already tried with kvPattern
	for i := 0; i < len(s); {
		h, trig := indexTrigger(s, i)
		if trig == trigNone {
			break
		}
		i = h + 1
		if h >= lineEnd {
			lineEnd = strings.IndexByte(s[h:], '\n')
			if lineEnd < 0 {
				lineEnd = len(s)
			} else {
				lineEnd += h
			}
		}
		var (
			rx    *regexp.Regexp
			start = h
		)
		switch trig {
		case trigBearer, trigSK, trigAWS:
			if !boundaryBefore(s, h) {
				continue
			}
			switch trig {
			case trigBearer:
				rx = re.bearer
			case trigSK:
				rx = re.sk
			default:
				rx = re.aws
			}
		case trigKV:
			if !separatorFollows(s, h) {
				continue
			}
			start = identStart(s, h)
			if start == triedKV {
				continue
			}
			triedKV = start
			rx = re.kv
		}
		// Candidates match or fail within a few bytes. A short window keeps
		// regexp on its backtracker instead of the slower NFA. If the window
		// cut the line and the result may depend on what follows (no match,
		// or a match running to the cut), redo it on the whole line, so the
		// window never changes the outcome.
		end := min(lineEnd, h+matchWindow)
		m := rx.FindStringSubmatchIndex(s[start:end])
		if end < lineEnd && (m == nil || start+m[1] == end) {
			m = rx.FindStringSubmatchIndex(s[start:lineEnd])
		}
		if m == nil {
			continue
		}
		// The first group that took part is the secret.
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 && m[g+1] > m[g] {
				spans = append(spans, [2]int{start + m[g], start + m[g+1]})
				break
			}
		}
	}
	return spans
}

// matchWindow is the input first given to an anchored default pattern.
const matchWindow = 256

// maxIdentScan bounds how far back from a secret word identStart looks, so
// a pathological identifier cannot make redaction quadratic. Past it the key
// is taken to start at the bound, which can only redact more, never less.
const maxIdentScan = 1024

// identStart returns where the identifier ([A-Za-z0-9_-]) containing s[h]
// starts.
func identStart(s string, h int) int {
	lo := max(0, h-maxIdentScan)
	j := h
	for j > lo && isIdentByte(s[j-1]) {
		j--
	}
	return j
}

// separatorFollows is a cheap necessary condition for kvPattern at a secret
// word starting at h: after the rest of the identifier, an optional
// (escaped) quote and blanks, there must be ':' or '='. It rejects prose such
// as "tokens used" without running the regexp.
func separatorFollows(s string, h int) bool {
	k := h
	for k < len(s) && isIdentByte(s[k]) {
		k++
	}
	if k < len(s) && s[k] == '\\' {
		k++
	}
	if k < len(s) && (s[k] == '"' || s[k] == '\'') {
		k++
	}
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	return k < len(s) && (s[k] == ':' || s[k] == '=')
}

// boundaryBefore reports whether a word may start at s[h]: at the start, after
// a non-word byte, or right after an escape sequence whose final byte happens
// to be a letter or digit ("\x1b[1mBearer", "\x1b(BAKIA..."), as raw
// transcripts are full of them.
func boundaryBefore(s string, h int) bool {
	if h == 0 || !isWordByte(s[h-1]) {
		return true
	}
	j := h - 2
	switch {
	case j >= 0 && s[j] == 0x1b: // ESC 7, ESC M, ...
		return true
	case j >= 1 && s[j-1] == 0x1b && 0x20 <= s[j] && s[j] <= 0x2f: // ESC ( B
		return true
	}
	// CSI: ESC [ parameter bytes (0x30-0x3f) intermediate bytes (0x20-0x2f) final.
	for lo := max(0, j-64); j >= lo && 0x20 <= s[j] && s[j] <= 0x3f; j-- {
	}
	return j >= 1 && s[j] == '[' && s[j-1] == 0x1b
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdentByte(c byte) bool { return c == '-' || isWordByte(c) }

// indexTrigger returns the position and kind of the first trigger word in s
// at or after from. Trigger words (ASCII case-insensitive) are the literal
// part every default pattern contains: bearer, sk-, akia, asia, and for
// key = value: key (api_key, apikey), token, secret, pass (password, passwd,
// passphrase) and authorization.
func indexTrigger(s string, from int) (int, trigger) {
	for i := from; i < len(s)-2; i++ {
		// Cheap reject on the first two bytes before comparing words.
		f := triggerFirst[s[i]]
		if f == 0 || f&triggerSecond[s[i+1]] == 0 {
			continue
		}
		rest := s[i:]
		switch rest[0] | 0x20 {
		case 'a':
			if hasPrefixFold(rest, "akia") || hasPrefixFold(rest, "asia") {
				return i, trigAWS
			}
			if hasPrefixFold(rest, "authorization") {
				return i, trigKV
			}
		case 'b':
			if hasPrefixFold(rest, "bearer") {
				return i, trigBearer
			}
		case 'k':
			if hasPrefixFold(rest, "key") {
				return i, trigKV
			}
		case 'p':
			if hasPrefixFold(rest, "pass") {
				return i, trigKV
			}
		case 's':
			if hasPrefixFold(rest, "sk-") {
				return i, trigSK
			}
			if hasPrefixFold(rest, "secret") {
				return i, trigKV
			}
		case 't':
			if hasPrefixFold(rest, "token") {
				return i, trigKV
			}
		}
	}
	return -1, trigNone
}

// Two-byte prefilter for indexTrigger: a trigger can start at s[i] only if
// triggerFirst[s[i]] & triggerSecond[s[i+1]] != 0. Each bit stands for one
// first letter; triggerSecond sets it on the letters that may follow.
const (
	tfA = 1 << iota // akia, asia, authorization
	tfB             // bearer
	tfK             // key
	tfP             // pass
	tfS             // sk-, secret
	tfT             // token
)

var triggerFirst = [256]uint8{
	'a': tfA, 'A': tfA, 'b': tfB, 'B': tfB, 'k': tfK, 'K': tfK,
	'p': tfP, 'P': tfP, 's': tfS, 'S': tfS, 't': tfT, 'T': tfT,
}

var triggerSecond = [256]uint8{
	'k': tfA | tfS, 'K': tfA | tfS,
	's': tfA, 'S': tfA,
	'u': tfA, 'U': tfA,
	'e': tfB | tfK | tfS, 'E': tfB | tfK | tfS,
	'a': tfP, 'A': tfP,
	'o': tfT, 'O': tfT,
}

// hasPrefixFold reports whether s starts with lower-case ASCII word w,
// ignoring ASCII case for letters.
func hasPrefixFold(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}
