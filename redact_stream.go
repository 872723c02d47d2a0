package ptywright

import (
	"regexp"
	"sync"
	"unicode/utf8"

	"ptywright/internal/secrets"
)

// Redacting a stream. Output arrives cut into arbitrary chunks and a secret
// can straddle two of them ("KEY sk-ant-api03-Q7", a pause, the rest):
// redacting each chunk on its own would hide neither half. The recorder
// (record.go) and Session.OutputSince (output.go) therefore share this
// machinery: the redactor sees some already released text again before the
// unreleased text (the lookbehind), so patterns that look back behave as
// on the whole stream, and streamCut decides how much of the unreleased
// text is safe to release: the rest could still be the start of a secret
// and is held back until more output settles it, a short timer expires or
// the stream ends.
//
// The cut rests on one property of every default pattern but the private
// key block: no secret contains a control character other than tab, nor a
// complete escape sequence. Held text therefore starts after the last one.
// A secret a program breaks with one (a colour change, an erased typo) is
// found on the text as shown (secrets.ThroughEscapes): its first piece is
// hidden when released, the rest as the continuation of a span that began
// in the lookbehind.
// A private key block is held whole, from its header, until its END line
// arrives (bounded by streamHoldHard).

// builtinOnly: r has no extra literals or regexes, which lack the shape
// narrowHold and withContextFor rely on in the default patterns.
func builtinOnly(r *Redactor) bool {
	return len(r.literals) == 0 && len(r.regexes) == 0
}

// Limits of the hold-back.
const (
	// streamHoldMax: a control-free run longer than this is cut anyway,
	// keeping streamHoldKeep bytes held.
	streamHoldMax  = 4096
	streamHoldKeep = 1024
	// streamHoldHard: a secret straddling the cut is held back only while
	// the held text stays under this, so memory stays bounded.
	streamHoldHard = 64 * 1024
	// streamSpanContext is how far before a straddling secret the cut
	// moves, so its key ("API_KEY=") stays held with it.
	streamSpanContext = 256
)

// text is lookbehind + held: released text seen again, then the text to
// release (or hold); either may be a string or a []byte.
type text interface{ ~string | ~[]byte }

// streamSpans returns the spans of r over s, where s[:lb] is lookbehind,
// moved into the coordinates of s[lb:]. A span that started in the
// lookbehind (released already) and reaches past it starts at 0: its
// continuation is hidden too.
func streamSpans(r *Redactor, s string, lb int) [][2]int {
	if len(s) == lb || !r.orDefault().enabled {
		return nil
	}
	var spans [][2]int
	for _, sp := range r.Spans(s) {
		if sp[1] <= lb {
			continue
		}
		spans = append(spans, [2]int{max(sp[0]-lb, 0), sp[1] - lb})
	}
	return spans
}

// streamCut returns how much of s (the unreleased text, with spans from
// streamSpans) can be released now without risking a secret that more
// output would complete. maxLit is the longest extra literal of the policy.
func streamCut[T text](s T, spans [][2]int, maxLit int) int {
	n := len(s)
	ctl := lastControlCut(s)
	cut := ctl
	if n-cut > streamHoldMax {
		cut = runeStartBefore(s, n-streamHoldKeep)
	}
	if maxLit > 1 && cut > n-(maxLit-1) {
		// A literal may have started in the last maxLit-1 bytes.
		cut = lastControlCut(s[:max(n-(maxLit-1), 0)])
	}
	for _, sp := range spans {
		if sp[0] < cut && sp[1] >= cut {
			// A secret reaches the cut and may go on: hold it with its key.
			back := max(sp[0]-streamSpanContext, 0)
			if ctl <= sp[0] && ctl > back {
				back = ctl
			}
			if n-back <= streamHoldHard {
				cut = runeStartBefore(s, back)
			}
			break
		}
	}
	return cut
}

// appendRedacted appends s[a:end] to out with the spans (sorted, in s's
// coordinates) replaced by repl. A span that started before a had its
// replacement written with the earlier piece.
func appendRedacted[T text](out []byte, s T, a, end int, spans [][2]int, repl string) []byte {
	pos := a
	for _, sp := range spans {
		if sp[1] <= pos {
			continue
		}
		if sp[0] >= end {
			break
		}
		if sp[0] >= pos {
			out = append(out, s[pos:sp[0]]...)
			out = append(out, repl...)
		}
		pos = min(sp[1], end)
	}
	return append(out, s[pos:end]...)
}

// maxLiteral returns the length of r's longest extra literal.
func (r *Redactor) maxLiteral() int {
	n := 0
	for _, l := range r.orDefault().literals {
		n = max(n, len(l))
	}
	return n
}

// openTailPattern matches, at the end of the text, what could be the start
// of a secret the default patterns would hide once the rest arrives: a
// vendor prefix with part of its key, an assignment of a secret with part
// of its value, a Bearer token, URL credentials before their '@', a private
// key header. The group is the part that would be hidden. See
// openSecretTail.
const openTailPattern = `(?:` +
	`(?:^|[^A-Za-z0-9_])((?:sk-|sk_|rk_|gh[pousr]_|github_pat_|gl[a-z]{2,6}-|xox[a-z]-|AKIA|ASIA|AIza|ya29\.|eyJ|npm_|whsec_)[A-Za-z0-9_.-]*)` +
	`|` + kvKey + kvSeparator + authScheme + `["']?([^\s"'` + "`" + `,;&\x00-\x1f\x7f]+)` +
	`|(?i:bearer)[ \t]+([A-Za-z0-9._~+/-]+=*)` +
	`|[A-Za-z][A-Za-z0-9+.-]*://[^\s/@]*:([^\s/@]+)` +
	`|(-----BEGIN [A-Z ]*)` +
	`)$`

var openTailRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(openTailPattern) })

// openTailWindow bounds the text openSecretTail looks at.
const openTailWindow = 512

// openSecretTail returns where a trailing possible secret start begins in
// s (after its key, scheme or separator, which stay readable), or -1. The
// output stream holds it back while the program may still complete it; a
// tail released by the timer (the program paused mid-line) has it hidden:
// if the rest of a secret follows, it is hidden as the continuation of a
// span; if not, a fragment of ordinary text was hidden, the cheaper
// mistake. Every alternative holds a trigger word, so a window without one
// costs no regexp run.
func openSecretTail(s string) int { return openTailIf(s, secrets.HasTrigger) }

// openTailIf is openSecretTail, which runs the regexp only on a window
// that may hold a tail.
func openTailIf(s string, may func(string) bool) int {
	s = secrets.TrimShownEnd(s) // "sk-ant-api03-Q7\x1b[1m" may go on too
	lo := max(0, len(s)-openTailWindow)
	for lo > 0 && lo < len(s) && !utf8.RuneStart(s[lo]) {
		lo++
	}
	if !may(s[lo:]) {
		return -1
	}
	m := openTailRe().FindStringSubmatchIndex(s[lo:])
	if m == nil {
		return -1
	}
	for g := 2; g+1 < len(m); g += 2 {
		if m[g] >= 0 && m[g+1] > m[g] {
			return lo + m[g]
		}
	}
	return -1
}

// lastControlCut returns where s can be cut so that no secret the default
// patterns hide can straddle the cut: after the last control character
// (other than tab: no secret contains one; nor a backspace or an escape
// inside a word, which a secret may go on through: secrets.InWord), or
// after the escape sequence it
// starts when that sequence is complete (its bytes cannot be part of a
// secret either), or before an incomplete one; 0 if s has none. A word
// right after the cut is still judged with the bytes before it, which the
// stream keeps as lookbehind.
func lastControlCut[T text](s T) int {
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if (c < 0x20 && c != '\t') || c == 0x7f {
			if (c == 0x1b || c == '\b') && secrets.InWord(s, i) {
				continue // inside a word: a secret may go on through it
			}
			if c == 0x07 {
				if e := secrets.BellStart(s, i); e >= 0 {
					i = e // a hyperlink inside a word
					continue
				}
			}
			if c != 0x1b {
				return i + 1
			}
			if escapeComplete(s[i:]) {
				return len(s)
			}
			return i
		}
	}
	return 0
}

// escapeComplete reports whether b is exactly one complete escape sequence:
// ESC [ parameters intermediates final (CSI) or ESC intermediates final.
// OSC and DCS strings end with BEL or ESC \, so they never qualify here.
func escapeComplete[T text](b T) bool {
	i := 1
	if i < len(b) && b[i] == '[' {
		i++
		for i < len(b) && b[i] >= 0x30 && b[i] <= 0x3f {
			i++
		}
	} else if i < len(b) && (b[i] == ']' || b[i] == 'P' || b[i] == '_' || b[i] == '^' || b[i] == 'X') {
		return false // A string sequence: its text runs to its terminator.
	}
	for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
		i++
	}
	return i == len(b)-1 && b[i] >= 0x30 && b[i] <= 0x7e
}

// incompleteUTF8 returns the length of a UTF-8 sequence cut off at the end
// of b (0 if b ends on a rune boundary or with an invalid byte).
func incompleteUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if b[i] >= utf8.RuneSelf && !utf8.FullRune(b[i:]) {
				return len(b) - i
			}
			return 0
		}
	}
	return 0
}

// runeStartBefore moves i back to the start of the rune it points into.
func runeStartBefore[T text](s T, i int) int {
	for k := 0; k < utf8.UTFMax-1 && i > 0 && i < len(s) && !utf8.RuneStart(s[i]); k++ {
		i--
	}
	return i
}
