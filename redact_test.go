package ptywright

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/require"

	"ptywright/internal/workload"
)

func TestDefaultRedactionPatterns(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		// Bearer tokens: the word stays, the token goes.
		{"bearer", "curl -H 'Bearer abc.def-ghi_jkl~mno+p/q=='", "curl -H 'Bearer [REDACTED]'"},
		{"bearer lower case", "bearer eyJhbGciOiJIUzI1NiJ9.e30.sig", "bearer [REDACTED]"},
		{"bearer upper case", "BEARER xyz123Q", "BEARER [REDACTED]"},
		{"bearer tab", "Bearer\tsecret7oken", "Bearer\t[REDACTED]"},
		{"bearer alone", "Bearer", "Bearer"},
		{"bearer at end of line", "Bearer \nnext line", "Bearer \nnext line"},
		{"bearer inside a word", "forbearer abc", "forbearer abc"},
		// sk- keys.
		{"sk key", "key is sk-abcdefghijklmnop1234 ok", "key is [REDACTED] ok"},
		{"sk-proj key", "sk-proj-AbCdEf0123456789_xyz-XYZ", "[REDACTED]"},
		{"sk-ant key", "export X=1; sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "export X=1; [REDACTED]"},
		{"sk exactly 16", "sk-0123456789abcdef", "[REDACTED]"},
		{"sk too short", "sk-0123456789abcde", "sk-0123456789abcde"},
		{"sk short word", "use sk-learn for that", "use sk-learn for that"},
		{"sk inside a word", "task-0123456789abcdefghij", "task-0123456789abcdefghij"},
		// AWS access key ids.
		{"aws akia", "aws_access_key_id AKIAIOSFODNN7EXAMPLE", "aws_access_key_id [REDACTED]"},
		{"aws asia", "(ASIAY34FZKBOKMUTVV7A)", "([REDACTED])"},
		{"aws lower case is not a key", "akiaiosfodnn7example", "akiaiosfodnn7example"},
		{"aws too short", "AKIAIOSFODNN7EXAMPL", "AKIAIOSFODNN7EXAMPL"},
		{"aws too long", "AKIAIOSFODNN7EXAMPLEX", "AKIAIOSFODNN7EXAMPLEX"},
		// key = value: the key and separator stay.
		{"api_key equals", "api_key=abc123", "api_key=[REDACTED]"},
		{"API_KEY env", "API_KEY=abc123 next", "API_KEY=[REDACTED] next"},
		{"apikey colon", "apikey: abc123", "apikey: [REDACTED]"},
		{"api-key header", "x-api-key: 0f0f0f", "x-api-key: [REDACTED]"},
		{"prefixed env var", "export GITHUB_TOKEN=ghx_abc4ef", "export GITHUB_TOKEN=[REDACTED]"},
		{"aws secret env", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", "AWS_SECRET_ACCESS_KEY=[REDACTED]"},
		{"client_secret", "client_secret = s3cr3tz", "client_secret = [REDACTED]"},
		{"token colon", "token: abc123", "token: [REDACTED]"},
		{"Token capitalised", "Your Token: abc123", "Your Token: [REDACTED]"},
		{"password spaces", "password   =   hunter2", "password   =   [REDACTED]"},
		{"passwd", "passwd=hunter2", "passwd=[REDACTED]"},
		{"passphrase", "passphrase: correct-horse", "passphrase: [REDACTED]"},
		{"secret go assign", `secret := "x1y2z3"`, `secret := "[REDACTED]"`},
		{"json password", `{"password": "hunter2", "user": "bob"}`, `{"password": "[REDACTED]", "user": "bob"}`},
		{"json password with spaces", `{"password":"correct horse battery"}`, `{"password":"[REDACTED]"}`},
		{"escaped json", `"{\"token\": \"abc123\"}"`, `"{\"token\": \"[REDACTED]\"}"`},
		{"single quoted", `token='abc def 12'`, `token='[REDACTED]'`},
		{"yaml style", "  secret: abc123\n  name: x", "  secret: [REDACTED]\n  name: x"},
		{"query string", "https://x/y?api_key=abc123&page=2", "https://x/y?api_key=[REDACTED]&page=2"},
		{"comma separated", "token=abc123,user=bob", "token=[REDACTED],user=bob"},
		{"authorization basic", "Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Authorization: Basic [REDACTED]"},
		{"authorization bearer", "Authorization: Bearer abc.def", "Authorization: Bearer [REDACTED]"},
		{"authorization raw", "authorization=abcdef1", "authorization=[REDACTED]"},
		{"proxy authorization", "Proxy-Authorization: Digest xyz789", "Proxy-Authorization: Digest [REDACTED]"},
		{"token with scheme", "token: Bearer xyz789", "token: Bearer [REDACTED]"},
		{"authorization scheme only", "Authorization: Basic", "Authorization: Basic"},
		{"multiple on a line", "token=a1b2c3 password=b4c5d6", "token=[REDACTED] password=[REDACTED]"},
		{"multiple lines", "a\ntoken=abc123\nb\nsecret=def456\nc", "a\ntoken=[REDACTED]\nb\nsecret=[REDACTED]\nc"},
		{"crlf", "token=abc123\r\nnext", "token=[REDACTED]\r\nnext"},
		{"cli flag", "run --password=hunter2 --verbose", "run --password=[REDACTED] --verbose"},
		{"leading underscore key", "_token=abc123 __secret: def456", "_token=[REDACTED] __secret: [REDACTED]"},
		{"escape after value survives", "API_KEY=abc123\x1b[0m rest", "API_KEY=[REDACTED]\x1b[0m rest"},
		{"quoted value stops at control", "token=\"abc123\x1b[0m\"", "token=\"[REDACTED]\x1b[0m\""},
		{"value longer than the match window", "token=" + strings.Repeat("x1", 500) + " end", "token=[REDACTED] end"},
		{"bearer longer than the match window", "Bearer " + strings.Repeat("y2", 350) + "\nnext", "Bearer [REDACTED]\nnext"},
		{"quoted value longer than the match window", `"secret": "` + strings.Repeat("z3 ", 200) + `"`, `"secret": "[REDACTED]"`},
		{"many on one long line", strings.Repeat("tokens used; token=v4w5x6 ", 50), strings.Repeat("tokens used; token=[REDACTED] ", 50)},
		{"bearer after SGR", "\x1b[1mBearer abc123\x1b[0m", "\x1b[1mBearer [REDACTED]\x1b[0m"},
		{"bearer after CSI without params", "\x1b[KBearer abc123", "\x1b[KBearer [REDACTED]"},
		{"sk after charset designation", "\x1b(Bsk-0123456789abcdefgh", "\x1b(B[REDACTED]"},
		{"aws after ESC 7", "\x1b7AKIAIOSFODNN7EXAMPLE", "\x1b7[REDACTED]"},
		{"kv after SGR", "\x1b[32mAPI_KEY=abc123", "\x1b[32mAPI_KEY=[REDACTED]"},
		{"key swallowed by bearer", "Bearer passwd = hunter2", "Bearer passwd = [REDACTED]"},
		{"glued secret word", "mytoken=abc123", "mytoken=[REDACTED]"},
		{"identifier longer than the match window", strings.Repeat("a", 600) + "_TOKEN=abc123", strings.Repeat("a", 600) + "_TOKEN=[REDACTED]"},
		{"blanks longer than the match window", "token=" + strings.Repeat(" ", 300) + "abc123", "token=" + strings.Repeat(" ", 300) + "[REDACTED]"},
		{"kv with sk value merges", "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrst", "OPENAI_API_KEY=[REDACTED]"},
		// Prose and near misses stay untouched.
		{"token in prose", "The token is stored in memory and never logged.", "The token is stored in memory and never logged."},
		{"secret in prose", "It's no secret that tests matter.", "It's no secret that tests matter."},
		{"password prompt without value", "Enter your password: ", "Enter your password: "},
		{"password prompt then next line", "Password:\nhello world", "Password:\nhello world"},
		{"empty quoted value", `password: ""`, `password: ""`},
		{"max_tokens is not token", "max_tokens: 4096", "max_tokens: 4096"},
		{"tokenizer is not token", "tokenizer=gpt2", "tokenizer=gpt2"},
		{"tokens plural", "tokens: 1200 used", "tokens: 1200 used"},
		{"keyboard", "keyboard: us", "keyboard: us"},
		{"secretary", "secretary: Alice", "secretary: Alice"},
		{"passwords list word", "passwords are hashed", "passwords are hashed"},
		{"nothing", "hello world", "hello world"},
		{"empty", "", ""},
		{"unicode around", "héllo token=秘密 wörld", "héllo token=[REDACTED] wörld"},
		// Precision: ordinary text that looks like an assignment of a secret.
		{"grep of /etc/passwd", "/etc/passwd:root:x:0:0:root:/root:/bin/bash", "/etc/passwd:root:x:0:0:root:/root:/bin/bash"},
		{"start error for /etc/passwd", `fork/exec /etc/passwd: permission denied`, `fork/exec /etc/passwd: permission denied`},
		{"nsswitch", "passwd:         files systemd", "passwd:         files systemd"},
		{"man synopsis metavariable", "[--password=PASSWORD] [--secret=SECRET]", "[--password=PASSWORD] [--secret=SECRET]"},
		{"placeholder word", "input_password = secret", "input_password = secret"},
		{"sample secret spelled with digits", "password=secr3t.", "password=secr3t."},
		{"reference to a secret", "passwd=$(getent passwd x) token=${TOKEN} key=<api-key>", "passwd=$(getent passwd x) token=${TOKEN} key=<api-key>"},
		{"elided key", "ANTHROPIC_API_KEY: sk-ant-...bcdefghijklmnop-AAAA", "ANTHROPIC_API_KEY: sk-ant-...bcdefghijklmnop-AAAA"},
		{"already redacted", "API_KEY=[REDACTED]", "API_KEY=[REDACTED]"},
		{"key with a non-secret suffix", "password_encryption = scram-sha-256", "password_encryption = scram-sha-256"},
		{"bearer in prose", "Specify the Bearer Token for OAUTH", "Specify the Bearer Token for OAUTH"},
		{"ssh key type", "sk-ssh-ed25519-cert-v01@openssh.com", "sk-ssh-ed25519-cert-v01@openssh.com"},
		{"code", "BadAPIKey  = APIError{Status: 401}", "BadAPIKey  = APIError{Status: 401}"},
		{"url placeholder", "ftp://user:password@host/", "ftp://user:password@host/"},
		{"url synopsis", "[protocol://][user[:password]@]proxyhost", "[protocol://][user[:password]@]proxyhost"},
		{"colon list", "hostname:port:username:password:base_dn:flags", "hostname:port:username:password:base_dn:flags"},
		{"numbers", "password_min = 4, token=4096", "password_min = 4, token=4096"},
		// Vendor tokens, URL credentials and private keys.
		{"github token", "push https://ghp_0123456789abcdefghijABCDEFGHIJ012345@github.com", "push https://[REDACTED]@github.com"},
		{"url password", "postgres://app:s3cr3tPa55@db:5432/x", "postgres://app:[REDACTED]@db:5432/x"},
		{"pem block", "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----\nb", "a\n[REDACTED]\nb"},
		{"pem unterminated", "-----BEGIN PRIVATE KEY-----\nMIIabc", "[REDACTED]"},
		{"pem certificate is public", "-----BEGIN CERTIFICATE-----\nMIIabc\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-----\nMIIabc\n-----END CERTIFICATE-----"},
	}
	r := DefaultRedactor()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, r.Redact(tt.in))
		})
	}
}

func TestRedactReturnsInputWhenClean(t *testing.T) {
	s := strings.Repeat("nothing to see ", 100)
	got := DefaultRedactor().Redact(s)
	require.Equal(t, s, got)
	require.True(t, unsafe.StringData(s) == unsafe.StringData(got), "no copy when nothing matches")
}

func TestNilAndDisabledRedactor(t *testing.T) {
	const s = "token=abc123 sk-abcdefghijklmnopqrstu"
	const want = "token=[REDACTED] [REDACTED]"
	var nilR *Redactor
	require.Equal(t, want, nilR.Redact(s), "nil means the default policy")
	require.Equal(t, DefaultRedactor().Spans(s), nilR.Spans(s))
	require.Equal(t, defaultRedactionReplacement, nilR.replacementText())
	require.True(t, nilR.Enabled())

	require.Equal(t, s, NoRedaction().Redact(s), "opting out is explicit")
	require.Nil(t, NoRedaction().Spans(s))
	require.False(t, NoRedaction().Enabled())

	off, err := RedactionPolicy{Enabled: false, ExtraLiterals: []string{"abc"}}.Compile()
	require.NoError(t, err)
	require.Equal(t, s, off.Redact(s))
	require.Nil(t, off.Spans(s))
	require.False(t, off.Enabled())
}

func TestDefaultRedactionPolicy(t *testing.T) {
	p := DefaultRedactionPolicy()
	require.True(t, p.Enabled)
	require.Equal(t, "[REDACTED]", p.Replacement)
	require.Empty(t, p.ExtraLiterals)
	require.Empty(t, p.ExtraRegexes)
	require.Same(t, DefaultRedactor(), DefaultRedactor(), "compiled once")
}

func TestRedactionExtras(t *testing.T) {
	tests := []struct {
		name   string
		policy RedactionPolicy
		in     string
		want   string
	}{
		{"literal everywhere", RedactionPolicy{Enabled: true, ExtraLiterals: []string{"hunter2"}}, "hunter2 and hunter2hunter2", "[REDACTED] and [REDACTED]"},
		{"literal is case-sensitive", RedactionPolicy{Enabled: true, ExtraLiterals: []string{"Hunter2"}}, "hunter2 Hunter2", "hunter2 [REDACTED]"},
		{"literal unicode", RedactionPolicy{Enabled: true, ExtraLiterals: []string{"秘密"}}, "a秘密b", "a[REDACTED]b"},
		{"custom replacement", RedactionPolicy{Enabled: true, Replacement: "***", ExtraLiterals: []string{"x1"}}, "ax1b token=q1w2e3", "a***b token=***"},
		{"empty replacement means default", RedactionPolicy{Enabled: true, Replacement: ""}, "token=q1w2e3", "token=[REDACTED]"},
		{"regex whole match", RedactionPolicy{Enabled: true, ExtraRegexes: []string{`ghp_[A-Za-z0-9]{6}`}}, "use ghp_abcdef now", "use [REDACTED] now"},
		{"regex across lines", RedactionPolicy{Enabled: true, ExtraRegexes: []string{`(?s)BEGIN.*END`}}, "a BEGIN\nkey\nEND b", "a [REDACTED] b"},
		{"regex matching empty is ignored", RedactionPolicy{Enabled: true, ExtraRegexes: []string{`x*`}}, "abc", "abc"},
		{"overlapping literal and regex merge", RedactionPolicy{Enabled: true, ExtraLiterals: []string{"abcdef"}, ExtraRegexes: []string{`defghi`}}, "..abcdefghi..", "..[REDACTED].."},
		{"touching spans merge", RedactionPolicy{Enabled: true, ExtraLiterals: []string{"abc", "def"}}, "abcdef", "[REDACTED]"},
		{"literal overlaps default", RedactionPolicy{Enabled: true, ExtraLiterals: []string{"n=ab"}}, "token=abc123", "toke[REDACTED]"},
		{"several literals", RedactionPolicy{Enabled: true, ExtraLiterals: []string{"one", "three"}}, "one two three", "[REDACTED] two [REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.policy.Compile()
			require.NoError(t, err)
			require.Equal(t, tt.want, r.Redact(tt.in))
		})
	}
}

func TestRedactionPolicyCompileErrors(t *testing.T) {
	tests := []struct {
		name   string
		policy RedactionPolicy
		field  string
	}{
		{"bad regex", RedactionPolicy{Enabled: true, ExtraRegexes: []string{`ok`, `(unclosed`}}, "extra_regexes[1]"},
		{"bad regex when disabled", RedactionPolicy{ExtraRegexes: []string{`[z-a]`}}, "extra_regexes[0]"},
		{"empty regex", RedactionPolicy{Enabled: true, ExtraRegexes: []string{""}}, "extra_regexes[0]"},
		{"empty literal", RedactionPolicy{Enabled: true, ExtraLiterals: []string{"a", "b", ""}}, "extra_literals[2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.policy.Compile()
			require.Nil(t, r)
			require.ErrorIs(t, err, ErrInvalidRedaction)
			var fe *FieldError
			require.True(t, errors.As(err, &fe))
			require.Equal(t, tt.field, fe.Field)
			require.True(t, strings.HasPrefix(err.Error(), tt.field+": "), err.Error())
		})
	}
}

func TestRedactionSpans(t *testing.T) {
	r, err := RedactionPolicy{Enabled: true, ExtraLiterals: []string{"xy", "yz", "q"}}.Compile()
	require.NoError(t, err)
	tests := []struct {
		in   string
		want [][2]int
	}{
		{"", nil},
		{"nothing", nil},
		{"xyz", [][2]int{{0, 3}}},           // overlapping literals merge
		{"xy yz", [][2]int{{0, 2}, {3, 5}}}, // separate stay separate, sorted
		{"qq", [][2]int{{0, 2}}},            // touching merge
		{"token=abc123 q", [][2]int{{6, 12}, {13, 14}}},
		{"q token=abc12q", [][2]int{{0, 1}, {8, 14}}}, // literal inside a default span
		{"é token=ü12345", [][2]int{{9, 16}}},         // byte offsets, not runes
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			require.Equal(t, tt.want, r.Spans(tt.in))
		})
	}
}

// TestRedactPlantedSecrets mixes secrets with look-alike prose in random
// order and layout (short lines, one long line, escape sequences) and checks
// that no secret survives and no prose is eaten. ("Bearer" is not in the
// prose: whatever word follows it is taken as the token, by design.)
func TestRedactPlantedSecrets(t *testing.T) {
	secrets := []string{
		"API_KEY=%s", `"password": "%s"`, "Authorization: Bearer %s", "Authorization: Basic %s",
		"sk-proj-%sabcdefghijklmnop", "--token=%s", "export GITHUB_TOKEN='%s'", "client_secret: %s",
		"x-api-key:%s", `{\"secret\":\"%s\"}`, "Bearer %s", "passwd = %s",
	}
	prose := []string{
		"the token is valid", "tokens used: 12", "press the key", "keyboard: us", "max_tokens: 4096",
		"no secret here", "password reset link sent", "sk-short", "AKIA", "passes", "tokenizer=bpe",
	}
	seps := []string{" ", "\n", "\r\n", "\x1b[1E", "; ", ", ", "\t"}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var b strings.Builder
		var planted []string
		for i := range 30 {
			if rng.IntN(2) == 0 {
				v := fmt.Sprintf("S3CR3T%dx%dx%d", round, i, rng.IntN(1000))
				planted = append(planted, v)
				fmt.Fprintf(&b, secrets[rng.IntN(len(secrets))], v)
			} else {
				b.WriteString(prose[rng.IntN(len(prose))])
			}
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		in := b.String()
		out := DefaultRedactor().Redact(in)
		require.NotContains(t, out, "S3CR3T", "input: %q", in)
		for _, p := range prose {
			require.Equal(t, strings.Count(in, p), strings.Count(out, p), "prose %q was altered in %q -> %q", p, in, out)
		}
		require.Len(t, planted, strings.Count(in, "S3CR3T"))
	}
}

func FuzzRedactSpans(f *testing.F) {
	for _, seed := range []string{
		"token=abc", "Authorization: Basic x", "sk-0123456789abcdefgh", "AKIAIOSFODNN7EXAMPLE",
		"é token=ü\n", "\xff\xfe token=\xff", `"password":"a b"`, "Bearer \x00", "",
	} {
		f.Add(seed)
	}
	r, err := RedactionPolicy{Enabled: true, ExtraLiterals: []string{"lit"}, ExtraRegexes: []string{`[0-9]{3}`}}.Compile()
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, s string) {
		spans := r.Spans(s)
		prevEnd := -1
		for _, sp := range spans {
			require.Less(t, prevEnd, sp[0], "sorted, disjoint, not touching")
			require.Less(t, sp[0], sp[1], "non-empty")
			require.LessOrEqual(t, sp[1], len(s))
			if utf8.ValidString(s) {
				require.True(t, utf8.RuneStart(s[sp[0]]) && (sp[1] == len(s) || utf8.RuneStart(s[sp[1]])), "rune boundaries")
			}
			prevEnd = sp[1]
		}
		out := r.Redact(s)
		if len(spans) == 0 {
			require.Equal(t, s, out)
		}
		require.NotContains(t, out, "lit")
	})
}

func TestRedactorConcurrentUse(t *testing.T) {
	r, err := RedactionPolicy{Enabled: true, ExtraLiterals: []string{"lit"}, ExtraRegexes: []string{`re+x`}}.Compile()
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				in := fmt.Sprintf("%d token=v%dx9y8z7 lit reeex", i, j)
				want := fmt.Sprintf("%d token=[REDACTED] [REDACTED] [REDACTED]", i)
				if got := r.Redact(in); got != want {
					t.Errorf("got %q want %q", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// redactionCorpus is 128 KiB of terminal-like text with a secret every 64
// lines.
func redactionCorpus(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		switch {
		case i%64 == 0:
			fmt.Fprintf(&b, "export API_KEY=sk-proj-%020d\r\n", i)
		case i%64 == 32:
			fmt.Fprintf(&b, "curl -H 'Authorization: Bearer tok%d' https://example.com/v1/items?page=%d\r\n", i, i)
		case i%7 == 0:
			fmt.Fprintf(&b, "  used %d tokens, keyboard shortcut ctrl+k to search (%d)\r\n", i, i)
		default:
			fmt.Fprintf(&b, "%05d  drwxr-xr-x  2 user staff  4096 Jan  1 00:00 some/directory/name_%d\r\n", i, i)
		}
	}
	return b.String()[:size]
}

func repeatToSize(s string, size int) string {
	return strings.Repeat(s, size/len(s)+1)[:size]
}

func BenchmarkRedact128KiB(b *testing.B) {
	for _, bc := range []struct {
		name  string
		input string
	}{
		{"mixed", redactionCorpus(128 << 10)},
		{"clean", repeatToSize("plain output line without anything of interest\r\n", 128<<10)},
		{"no_newlines", strings.ReplaceAll(redactionCorpus(128<<10), "\r\n", "\x1b[1E")},
		// A TUI's raw output: colour changes everywhere, some inside words.
		{"claude_raw", string(workload.ClaudeRedraws(128<<10, 24, 80))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := DefaultRedactor()
			b.SetBytes(int64(len(bc.input)))
			b.ReportAllocs()
			spans := len(r.Spans(bc.input))
			for b.Loop() {
				_ = r.Redact(bc.input)
			}
			b.ReportMetric(float64(spans), "spans/op")
		})
	}
}
