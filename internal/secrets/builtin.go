// Package secrets finds the secrets ptywright's default redaction policy
// hides: vendor keys (sk-, ghp_, AKIA...), bearer tokens, credentials in
// URLs, key = value pairs whose key names a secret, and private key blocks.
// The root's Redactor (redact.go) adds the policy's own literals and
// regexps, merges the spans and replaces them.
package secrets

import (
	"regexp"
	"strings"
	"sync"
)

// The default patterns. Each one is matched anchored at a position the
// trigger scan proposes (see Spans), so a regexp only ever runs over
// the few bytes of a candidate match, never over the whole text. Capture
// groups surround only the part to hide, so keys, separators and auth schemes
// stay readable ("API_KEY=[REDACTED]", "Bearer [REDACTED]"). None of them can
// cross a line break; private key blocks (pemSpan) are found without a
// regexp and are the one secret that spans lines.
//
// Precision matters as much as recall: a redactor that hides ordinary text
// ("/etc/passwd: permission denied", "passwd: files systemd") teaches people
// to turn it off. Patterns with a vendor prefix (sk-, ghp_, AKIA...) are
// trusted as they are; the generic ones (key = value, Bearer, URL
// credentials) only count when the value is plausibleSecret.
const (
	// Bearer <token>: keep the word, hide the token (RFC 6750 charset).
	bearerPattern = `^(?i:bearer)[ \t]+([A-Za-z0-9._~+/-]+=*)`
	// OpenAI / Anthropic style keys: sk-, sk-proj-, sk-ant-api03-, ...: a
	// random part of 16 or more characters after optional dash-separated
	// words. SSH key type names ("sk-ssh-ed25519-cert-v01") have no such
	// part.
	skPattern = `^(sk-(?:[A-Za-z0-9_]*-)*[A-Za-z0-9_]{16,}[A-Za-z0-9_-]*)`
	// AWS access key ids (long-term AKIA, temporary ASIA).
	awsPattern = `^((?:AKIA|ASIA)[A-Z0-9]{16})\b`
	// Vendor tokens recognised by their prefix: GitHub (classic and
	// fine-grained), GitLab, Slack, Stripe (secret, restricted, webhook),
	// Google API keys and OAuth access tokens, npm, and JSON Web Tokens
	// (header.payload.signature, both JSON parts starting "eyJ").
	tokenPattern = `^(` +
		`gh[pousr]_[A-Za-z0-9]{30,255}` +
		`|github_pat_[A-Za-z0-9_]{22,255}` +
		`|gl(?:pat|dt|rt|ptt|cbt|oas|soat|ffct|imt|agent)-[A-Za-z0-9_-]{20,}` +
		`|xox[abposre]-[A-Za-z0-9-]{10,}` +
		`|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}` +
		`|whsec_[A-Za-z0-9]{24,}` +
		`|AIza[A-Za-z0-9_-]{35}` +
		`|ya29\.[A-Za-z0-9_-]{20,}` +
		`|npm_[A-Za-z0-9]{36}` +
		`|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}` +
		`)`
	// scheme://user:password@host: the password is hidden.
	urlPattern = `^[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@"'<>\[\]\x00-\x1f\x7f]+:([^\s/?#@"'<>\[\]\x00-\x1f\x7f]+)@`
	// key = value, where the key is an identifier containing a secret word,
	// optionally followed by segments that still name the secret: API_KEY,
	// x-api-key, GITHUB_TOKEN, --password, client_secret,
	// AWS_SECRET_ACCESS_KEY, SECRET_KEY_BASE. "max_tokens", "tokenizer",
	// "password_encryption" and "passphrase_command" do not qualify. The
	// word may start mid-identifier so that a key glued to an escape
	// sequence ("\x1b[1mAPI_KEY=") still counts.
	kvPattern = `^` + KVKey + KVSeparator + AuthScheme + kvValue
	// KVKey is the key of key = value (exported with KVSeparator and
	// AuthScheme for the stream redactor, which looks for a secret whose
	// value has not all arrived yet).
	KVKey    = `(?i:[a-z0-9_-]*?(?:api[_-]?key|apikey|token|secret|passw(?:or)?d|passphrase|authorization)` + kvSuffix + `)`
	kvSuffix = `(?:[_-](?:access|key|token|secret|value|string|str|b64|base64|base|hex|plain|plaintext|raw|[0-9]+))*`
	// KVSeparator is the closing quote of a quoted key (also JSON-escaped),
	// then = : or :=.
	KVSeparator = `\\?["']?[ \t]*(?::=|[:=])[ \t]*`
	// AuthScheme: a recognised auth scheme before the value stays visible and the
	// credential after it is hidden ("Authorization: Basic [REDACTED]",
	// "token: Bearer [REDACTED]"); without this the scheme word would be
	// taken as the whole value and the credential would leak.
	AuthScheme = `(?i:(?:basic|bearer|digest|negotiate|token)[ \t]+)?`
	// The value: the inside of a quoted string, or a bare run up to
	// whitespace, a quote or a list/query separator. Control characters end
	// it too, so an escape sequence after a secret in raw output survives.
	kvValue = `(?:\\?"([^"\\\x00-\x1f\x7f]+)|'([^'\x00-\x1f\x7f]+)|([^\s"'` + "`" + `,;&\x00-\x1f\x7f]+))`
)

type builtinRegexps struct{ bearer, sk, aws, kv, token, url *regexp.Regexp }

var builtinPatterns = sync.OnceValue(func() *builtinRegexps {
	return &builtinRegexps{
		bearer: regexp.MustCompile(bearerPattern),
		sk:     regexp.MustCompile(skPattern),
		aws:    regexp.MustCompile(awsPattern),
		kv:     regexp.MustCompile(kvPattern),
		token:  regexp.MustCompile(tokenPattern),
		url:    regexp.MustCompile(urlPattern),
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
	trigToken          // a vendor token prefix at a word boundary
	trigURL            // "://"
	trigPEM            // "-----BEGIN "
)

// Spans appends the spans of the default patterns in s. replacement is the
// text the caller will put in their place: a value that already reads as
// it is not a secret.
//
// A byte scan finds trigger words (ASCII case-insensitive); each trigger
// proposes one anchored start: the trigger itself for bearer, sk-, AWS and
// vendor keys, the start of the scheme for URLs, and the start of the
// enclosing identifier for key = value. Every trigger is tried, even inside
// an earlier match, and the caller merges the spans: a global regexp search
// would instead skip a secret whose key was swallowed by the previous match
// ("Bearer passwd = x").
func Spans(s, replacement string, spans [][2]int) [][2]int {
	re := builtinPatterns()
	lineEnd := -1 // end of the line containing the current trigger
	triedKV := -1 // identifier start already tried with kvPattern
	for i := 0; i < len(s); {
		h, trig := indexTrigger(s, i)
		if trig == trigNone {
			break
		}
		i = h + 1
		if trig == trigPEM {
			if sp, ok := pemSpan(s, h); ok {
				spans = append(spans, sp)
			}
			continue
		}
		if h >= lineEnd {
			lineEnd = strings.IndexByte(s[h:], '\n')
			if lineEnd < 0 {
				lineEnd = len(s)
			} else {
				lineEnd += h
			}
		}
		var (
			rx      *regexp.Regexp
			start   = h
			generic bool // the value must be plausibleSecret
		)
		switch trig {
		case trigBearer, trigSK, trigAWS, trigToken:
			if !boundaryBefore(s, h) {
				continue
			}
			switch trig {
			case trigBearer:
				rx, generic = re.bearer, true
			case trigSK:
				rx = re.sk
			case trigToken:
				rx = re.token
			default:
				rx = re.aws
			}
		case trigURL:
			start = schemeStart(s, h)
			if start == h {
				continue
			}
			rx, generic = re.url, true
		case trigKV:
			if !separatorFollows(s, h) {
				continue
			}
			start = identStart(s, h)
			if start == triedKV {
				continue
			}
			triedKV = start
			if start > 0 && (s[start-1] == '/' || s[start-1] == '\\' || s[start-1] == ':') {
				// A path component ("/etc/passwd: permission denied") or a
				// field of a colon-separated list ("user:password:flags").
				continue
			}
			rx, generic = re.kv, true
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
				a, b := start+m[g], start+m[g+1]
				if generic && !plausibleSecret(s[a:b], a > 0 && (s[a-1] == '"' || s[a-1] == '\''), replacement) {
					break
				}
				spans = append(spans, [2]int{a, b})
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

// schemeStart returns where the URL scheme ending at s[h] ("://") starts,
// h if there is none.
func schemeStart(s string, h int) int {
	lo := max(0, h-32)
	j := h
	for j > lo && (isWordByte(s[j-1]) && s[j-1] != '_' || s[j-1] == '+' || s[j-1] == '.' || s[j-1] == '-') {
		j--
	}
	for j < h && !('a' <= s[j]|0x20 && s[j]|0x20 <= 'z') {
		j++ // A scheme starts with a letter.
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

// HasTrigger reports whether s holds a trigger word (see indexTrigger),
// or a character that a case-insensitive regexp takes for a letter of one:
// a text without either holds no secret the default patterns hide, nor
// the start of one (the literal part of each, a vendor prefix, a key's
// secret word, "bearer", "://", a private key header, is a trigger), even
// for a regexp written with (?i). Go folds K (U+212A, the Kelvin sign)
// with k and ſ (U+017F, long s) with s; no other letter of a trigger
// word has a fold outside ASCII.
func HasTrigger(s string) bool {
	if h, _ := indexTrigger(s, 0); h >= 0 {
		return true
	}
	return strings.Contains(s, "\u212a") || strings.Contains(s, "\u017f")
}

// MaxTriggerLen is the length in bytes of the longest trigger word
// ("authorization"): a scan that goes on from where an earlier one
// stopped starts MaxTriggerLen-1 bytes before it, to see a trigger the
// stop went through.
const MaxTriggerLen = len("authorization")

// Plain reports whether s holds nothing the default patterns could hide or
// begin to, raw or as the terminal shows it: no trigger (HasTrigger), and
// no escape or backspace, so ThroughEscapes reads s as it is. A part of a
// plain text is plain, and a text is plain when its parts that overlap by
// MaxTriggerLen-1 bytes are.
func Plain(s string) bool {
	return strings.IndexByte(s, 0x1b) < 0 && strings.IndexByte(s, '\b') < 0 && !HasTrigger(s)
}

// indexTrigger returns the position and kind of the first trigger word in s
// at or after from. Trigger words are the literal part every default
// pattern contains. ASCII case-insensitive: bearer, sk-, akia, asia, and for
// key = value: key (api_key, apikey), token, secret, pass (password, passwd,
// passphrase) and authorization. Case-sensitive: the vendor token prefixes
// (gh?_, github_pat_, gl*-, xox?-, sk_, rk_, whsec_, AIza, ya29., npm_,
// eyJ), "://" and "-----BEGIN ".
func indexTrigger(s string, from int) (int, trigger) {
	// Positions below oneByOne are tested one at a time: the eight of a
	// block that held a candidate, so that no position is in two blocks.
	oneByOne := from
	for i := from; i < len(s)-2; i++ {
		if i >= oneByOne {
			// Eight positions at a time while none passes the two-byte
			// prefilter: no branch per byte, where letters that may start
			// a trigger are common.
			// One table read per byte: its masks as a first byte (low
			// half) and as a second (high half).
			for i+10 <= len(s) {
				b := s[i : i+9]
				e0, e1, e2 := triggerPair[b[0]], triggerPair[b[1]], triggerPair[b[2]]
				e3, e4, e5 := triggerPair[b[3]], triggerPair[b[4]], triggerPair[b[5]]
				e6, e7, e8 := triggerPair[b[6]], triggerPair[b[7]], triggerPair[b[8]]
				if (e0&(e1>>16)|e1&(e2>>16)|e2&(e3>>16)|e3&(e4>>16)|
					e4&(e5>>16)|e5&(e6>>16)|e6&(e7>>16)|e7&(e8>>16))&0xffff != 0 {
					break
				}
				i += 8
			}
			oneByOne = i + 8
			if i >= len(s)-2 {
				break
			}
		}
		// Cheap reject on the first two bytes before comparing words.
		f := triggerFirst[s[i]]
		if f == 0 || f&triggerSecond[s[i+1]] == 0 {
			continue
		}
		if t := triggerAt(s[i:]); t != trigNone {
			return i, t
		}
	}
	return -1, trigNone
}

// triggerAt returns the kind of the trigger word s starts with, or
// trigNone.
func triggerAt(s string) trigger {
	switch s[0] | 0x20 {
	case 'a':
		if hasPrefixFold(s, "akia") || hasPrefixFold(s, "asia") {
			return trigAWS
		}
		if hasPrefixFold(s, "authorization") {
			return trigKV
		}
		if strings.HasPrefix(s, "AIza") {
			return trigToken
		}
	case 'b':
		if hasPrefixFold(s, "bearer") {
			return trigBearer
		}
	case 'e':
		if strings.HasPrefix(s, "eyJ") {
			return trigToken
		}
	case 'g':
		if len(s) > 3 && s[1] == 'h' && s[3] == '_' && strings.IndexByte("pousr", s[2]) >= 0 ||
			strings.HasPrefix(s, "github_pat_") || strings.HasPrefix(s, "gl") {
			return trigToken
		}
	case 'k':
		if hasPrefixFold(s, "key") {
			return trigKV
		}
	case 'n':
		if strings.HasPrefix(s, "npm_") {
			return trigToken
		}
	case 'p':
		if hasPrefixFold(s, "pass") {
			return trigKV
		}
	case 'r':
		if strings.HasPrefix(s, "rk_") {
			return trigToken
		}
	case 's':
		if hasPrefixFold(s, "sk-") {
			return trigSK
		}
		if strings.HasPrefix(s, "sk_") {
			return trigToken
		}
		if hasPrefixFold(s, "secret") {
			return trigKV
		}
	case 't':
		if hasPrefixFold(s, "token") {
			return trigKV
		}
	case 'w':
		if strings.HasPrefix(s, "whsec_") {
			return trigToken
		}
	case 'x':
		if strings.HasPrefix(s, "xox") {
			return trigToken
		}
	case 'y':
		if strings.HasPrefix(s, "ya29.") {
			return trigToken
		}
	case ':':
		if strings.HasPrefix(s, "://") {
			return trigURL
		}
	case '-':
		if strings.HasPrefix(s, pemBegin) {
			return trigPEM
		}
	}
	return trigNone
}

// Two-byte prefilter for indexTrigger: a trigger can start at s[i] only if
// triggerFirst[s[i]] & triggerSecond[s[i+1]] != 0. Each bit stands for one
// first byte; triggerSecond sets it on the bytes that may follow.
const (
	tfA     = 1 << iota // akia, asia, authorization, AIza
	tfB                 // bearer
	tfK                 // key
	tfP                 // pass
	tfS                 // sk-, sk_, secret
	tfT                 // token
	tfE                 // eyJ
	tfG                 // gh?_, github_pat_, gl*-
	tfN                 // npm_
	tfR                 // rk_
	tfW                 // whsec_
	tfX                 // xox
	tfY                 // ya29.
	tfColon             // ://
	tfDash              // -----BEGIN
)

var triggerFirst = [256]uint16{
	'a': tfA, 'A': tfA, 'b': tfB, 'B': tfB, 'k': tfK, 'K': tfK,
	'p': tfP, 'P': tfP, 's': tfS, 'S': tfS, 't': tfT, 'T': tfT,
	'e': tfE, 'g': tfG, 'n': tfN, 'r': tfR, 'w': tfW, 'x': tfX, 'y': tfY,
	':': tfColon, '-': tfDash,
}

var triggerSecond = [256]uint16{
	'k': tfA | tfS | tfR, 'K': tfA | tfS,
	's': tfA, 'S': tfA,
	'u': tfA, 'U': tfA,
	'I': tfA,
	'e': tfB | tfK | tfS, 'E': tfB | tfK | tfS,
	'a': tfP | tfY, 'A': tfP,
	'o': tfT | tfX, 'O': tfT,
	'y': tfE,
	'h': tfG | tfW, 'i': tfG, 'l': tfG,
	'p': tfN,
	'/': tfColon,
	'-': tfDash,
}

// triggerPair is triggerFirst in the low half of each entry and
// triggerSecond in the high half.
var triggerPair = func() (t [256]uint32) {
	for c := range t {
		t[c] = uint32(triggerFirst[c]) | uint32(triggerSecond[c])<<16
	}
	return t
}()

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
