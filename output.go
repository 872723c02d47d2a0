package ptywright

import (
	"time"
	"unicode/utf8"

	"ptywright/internal/secrets"
)

// OutputHoldDelay is how long OutputSince holds back a tail that could still
// be the start of a secret after the program last wrote: long enough for
// the rest of a line written in two pieces, short enough that a prompt
// without a newline shows at once to a human eye.
const OutputHoldDelay = 100 * time.Millisecond

// OutputChunk is a piece of a session's output stream, from OutputSince.
type OutputChunk struct {
	// Text is the output since the cursor, redacted as one stream.
	Text string
	// Next is the cursor to pass next time.
	Next int64
	// Dropped says the transcript bound cut part of the output since the
	// cursor: Text starts at the oldest retained character.
	Dropped bool
	// HeldUntil, when not zero, says a tail that could still be the start of
	// a secret was held back (it is not in Text and Next stops before it).
	// Ask again at that time, or at the next change: it is then released.
	HeldUntil time.Time
}

// OutputSince returns what the program wrote since cursor (see
// TranscriptCursor; 0 is the start), redacted with r (nil: the session's
// redactor, Options.Redactor; NoRedaction: raw) as one stream rather than
// chunk by chunk: joining the Text of successive calls never shows a secret
// that the program wrote in two pieces. A trailing fragment that could begin a secret
// ("sk-ant-api03-Q7", "password=hu") is held back while the program wrote
// less than OutputHoldDelay ago, since more output may complete it; when
// the program has been quiet that long, or has exited, everything is
// released, with such a fragment hidden. Ordinary partial lines (an echo, a
// prompt) are released at once. A secret that a
// released part began is hidden in the part that continues it.
//
// The transcript bound applies: output older than TranscriptMaxChars
// characters is gone (Dropped).
func (s *Session) OutputSince(cursor int64, r *Redactor) OutputChunk {
	r = s.redactor(r)
	s.mu.Lock()
	i, at, end, dropped := s.tr.sinceStart(cursor)
	var text string
	split := 0
	if r.enabled {
		text, split = s.tr.withContextFor(i, r)
	} else {
		text = string(s.tr.buf[i:])
	}
	last := s.lastOutput
	settled := isDone(s.exited) || s.closed
	s.mu.Unlock()
	if !r.enabled {
		return OutputChunk{Text: text, Next: end, Dropped: dropped}
	}
	held := text[split:]
	spans := streamSpans(r, text, split)
	out := OutputChunk{Next: end, Dropped: dropped}
	cut := len(held)
	if since := time.Since(last); !settled && since < OutputHoldDelay {
		cut = streamCut(held, spans, r.maxLiteral())
		if cut < len(held) && builtinOnly(r) {
			cut = narrowHold(held, cut, spans)
		}
		if cut < len(held) {
			out.HeldUntil = last.Add(OutputHoldDelay)
			out.Next = at + int64(utf8.RuneCountInString(held[:cut]))
		}
	} else if k := openSecretTail(held); k >= 0 {
		spans = secrets.MergeSpans(append(spans, [2]int{k, len(held)}))
	}
	if len(spans) == 0 {
		// Nothing to hide: held is already this call's own copy of the
		// transcript (withContextFor), so no second one.
		out.Text = held[:cut]
	} else {
		out.Text = string(appendRedacted(nil, held, 0, cut, spans, r.replacement))
	}
	return out
}

// narrowHold narrows the hold streamCut chose (everything after the last
// line break) to what could still be the start of a secret for the default
// patterns: a trailing openSecretTail, or the whole tail when a secret
// reaches its end or streamCut held more for one. Text before that is
// released at once, so an echo or a prompt is not delayed. It is safe
// because what the default patterns hide starts with a part that is not
// secret (a vendor prefix, a key and separator, "Bearer ", "scheme://user:"):
// released, that part is seen again as lookbehind, and the secret after it
// is hidden when it arrives. Extra literals and regexes have no such part,
// so a policy with extras keeps streamCut's hold.
func narrowHold(held string, cut int, spans [][2]int) int {
	if cut != lastControlCut(held) {
		return cut // A secret straddles the cut: streamCut holds it whole.
	}
	for _, sp := range spans {
		if sp[1] >= len(held) {
			return cut // A secret runs to the end and may go on.
		}
	}
	if k := openSecretTail(held[cut:]); k >= 0 {
		return cut + k
	}
	return len(held)
}

// redactAfter redacts s[split:] with r (nil: DefaultRedactor), judging it
// with s[:split] before it, which is not returned.
func redactAfter(r *Redactor, s string, split int) string {
	r = r.orDefault()
	if !r.enabled {
		return s[split:]
	}
	spans := streamSpans(r, s, split)
	if len(spans) == 0 {
		return s[split:]
	}
	return string(appendRedacted(nil, s[split:], 0, len(s)-split, spans, r.replacement))
}
