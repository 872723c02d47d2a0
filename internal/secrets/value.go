package secrets

import "strings"

// pemBegin starts every PEM block; pemSpan decides whether it holds a key.
const pemBegin = "-----BEGIN "

// maxPEMHeader bounds the label of a PEM header line.
const maxPEMHeader = 64

// pemSpan returns the span of the private key block whose header starts at
// s[h]: from the header through the end of its "-----END ...-----" line, or
// to the end of s when the block is not closed yet (a stream will bring the
// rest, and a cut screen shows no more). Certificates and public keys are
// not secrets and are left alone. Unlike the other patterns it spans lines;
// the body may also be JSON-escaped ("\n") on one line.
func pemSpan(s string, h int) ([2]int, bool) {
	label := s[h+len(pemBegin):]
	end := strings.Index(label[:min(len(label), maxPEMHeader)], "-----")
	if end < 0 {
		return [2]int{}, false
	}
	label = label[:end]
	if !strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
		return [2]int{}, false
	}
	body := h + len(pemBegin) + end + len("-----")
	closing := strings.Index(s[body:], "-----END ")
	if closing < 0 {
		return [2]int{h, len(s)}, true
	}
	stop := body + closing + len("-----END ")
	if k := strings.Index(s[stop:min(len(s), stop+maxPEMHeader)], "-----"); k >= 0 {
		stop += k + len("-----")
	}
	return [2]int{h, stop}, true
}

// minSecretLen is the shortest value a generic pattern (key = value,
// Bearer, URL credentials) hides. Shorter ones are flags, counts and
// placeholders in real text ("secret = # disable", "password_min = 4").
const minSecretLen = 6

// minWordSecretLen is the shortest value made of letters alone (and word
// separators) that counts: "files", "secret", "insta" in configuration text
// are words, a passphrase is longer.
const minWordSecretLen = 12

// placeholderValues are values documentation and configuration use in
// place of a secret (compared in lower case).
var placeholderValues = map[string]bool{
	"secret": true, "password": true, "passwd": true, "pass": true, "token": true, "key": true,
	"apikey": true, "api_key": true, "api-key": true, "changeme": true, "change_me": true,
	"example": true, "none": true, "null": true, "nil": true, "true": true, "false": true,
	"undefined": true, "empty": true, "required": true, "optional": true, "hidden": true,
	"redacted": true, "default": true, "unset": true, "disabled": true, "enabled": true,
	"your_token": true, "your_api_key": true, "your-api-key": true, "your_password": true,
	"mysecretpassword": true, "secretpassword": true, "placeholder": true,
}

// unleet undoes the digit-for-letter spelling documentation uses for its
// sample secrets ("secr3t", "p4ssw0rd").
var unleet = strings.NewReplacer("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s")

// plausibleSecret reports whether v, the value a generic pattern captured,
// can be a secret rather than ordinary text: not a reference to one
// ($VAR, ${VAR}, $(cmd), <placeholder>, %s, {{.T}}, a path), not elided
// ("sk-ant-...AAAA", "…"), not the replacement itself (redacting twice
// changes nothing), not a placeholder word or a run of one character, not
// code ("APIError{...}"), and long enough for a secret. quoted says v was
// inside quotes, where a leading blank means prose.
func plausibleSecret(v string, quoted bool, replacement string) bool {
	if v == "" || v == replacement || strings.Contains(v, replacement) {
		return false
	}
	if quoted && (v[0] == ' ' || v[0] == '\t') {
		return false
	}
	switch v[0] {
	case '<', '%', '{', '[', '(', ')', ']', '}', '>', ',', '.', ';', ':', '|', '/', '\\', '#', '*', '`', '~', '@', '?', '!', '=':
		return false
	case '$':
		if len(v) > 1 && (v[1] == '{' || v[1] == '(' || v[1] == '_' || 'A' <= v[1]|0x20 && v[1]|0x20 <= 'z') {
			return false
		}
	}
	if strings.Contains(v, "...") || strings.Contains(v, "…") {
		return false
	}
	for _, ref := range []string{"env:", "file:", "fd:"} {
		if strings.HasPrefix(v, ref) {
			return false // OpenSSL-style reference to where the secret is.
		}
	}
	v = strings.TrimPrefix(v, "pass:")     // OpenSSL-style literal: judge the rest.
	v = strings.TrimRight(v, ".,;:!?)]}>") // Punctuation closing prose or a synopsis.
	v = strings.TrimSuffix(v, "\u2010")    // A hyphen where man broke the line.
	if len(v) < minSecretLen || placeholderValues[unleet.Replace(strings.ToLower(v))] {
		return false
	}
	if strings.Count(v, v[:1]) == len(v) {
		return false // "xxxxxxxx", "********"
	}
	words := true   // letters and word separators only
	metavar := true // upper case and underscores: FORWARD_SSH_PASSWORD
	digits := true  // a count, a port, an example PIN
	for i := 0; i < len(v); i++ {
		c := v[i]
		metavar = metavar && ('A' <= c && c <= 'Z' || c == '_')
		digits = digits && '0' <= c && c <= '9'
		switch {
		case 'a' <= c|0x20 && c|0x20 <= 'z', c == '-', c == '_', c == ' ':
		case c == '(' || c == '{':
			if i > 0 && isWordByte(v[i-1]) {
				return false // A call or a composite literal: code.
			}
			words = false
		default:
			words = false
		}
	}
	if metavar || digits {
		return false
	}
	if words {
		// "fakepassword", "my-secret-token" name a secret, they are none.
		lower := strings.ToLower(v)
		for _, w := range []string{"secret", "passw", "token", "apikey", "api_key"} {
			if strings.Contains(lower, w) {
				return false
			}
		}
	}
	return !words || len(v) >= minWordSecretLen
}
