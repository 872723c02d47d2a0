package ptywright

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"ptywright/asciicast"
)

// recordChunks records chunks as output through a real recorder file and
// reads the file back.
func recordChunks(t *testing.T, red *Redactor, chunks ...string) *asciicast.Recording {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rec.cast")
	r, err := newRecorder(path, Size{Rows: 24, Cols: 80}, []string{"TERM=xterm-256color", "SHELL=/bin/sh", "HOME=/x"}, red)
	require.NoError(t, err)
	for _, c := range chunks {
		r.output([]byte(c))
		r.flush() // As the session does after each feed.
	}
	require.NoError(t, r.close())
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rec, err := asciicast.Read(f)
	require.NoError(t, err)
	return rec
}

func outputOf(rec *asciicast.Recording) string {
	var b strings.Builder
	for _, ev := range rec.Events {
		if ev.Type == asciicast.EventOutput {
			b.WriteString(ev.Data)
		}
	}
	return b.String()
}

// recordingSecrets is terminal output with secrets in the shapes the default
// patterns know, glued to escape sequences the way TUIs print them.
var recordingSecrets = []struct {
	name, text, secret string
}{
	{"env assignment", "$ export API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789\r\n$ ", "abcdefghijklmnopqrstuvwxyz0123456789"},
	{"bearer after SGR", "\x1b[1mBearer abcdef123456.xyzXYZ\x1b[0m done\r\n", "abcdef123456.xyzXYZ"},
	{"header", "curl -H 'Authorization: Bearer tok_123456789abcdef' https://x\r\n", "tok_123456789abcdef"},
	{"aws", "\x1b[32mkey\x1b[0m AKIAABCDEFGHIJKLMNOP\r\n", "AKIAABCDEFGHIJKLMNOP"},
	{"tui redraw, no newline", "\x1b[2;5Htoken=abc123def456ghi\x1b[3;1H\x1b[38;5;208mThinking…\x1b[0m", "abc123def456ghi"},
	{"secret last, held to close", "\x1b[Kpassword: hunter2hunter2", "hunter2hunter2"},
	{"wide text around", "中文 secret=「値」xyz123 🙂\r\n", "「値」xyz123"},
}

func TestRecorderRedactsSecretsSplitAtEveryByte(t *testing.T) {
	red := DefaultRedactor()
	for _, tc := range recordingSecrets {
		t.Run(tc.name, func(t *testing.T) {
			want := red.Redact(tc.text)
			require.NotContains(t, want, tc.secret, "the default policy must hide the test secret")
			for i := 0; i <= len(tc.text); i++ {
				rec := recordChunks(t, red, tc.text[:i], tc.text[i:])
				got := outputOf(rec)
				require.Equal(t, want, got, "split at byte %d", i)
			}
		})
	}
}

func TestRecorderRedactsSecretsInRandomChunks(t *testing.T) {
	red := DefaultRedactor()
	var all strings.Builder
	for _, tc := range recordingSecrets {
		all.WriteString(tc.text)
		all.WriteString("\r\n")
	}
	text := all.String()
	want := red.Redact(text)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var chunks []string
		for rest := text; rest != ""; {
			n := min(1+rng.IntN(12), len(rest))
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		rec := recordChunks(t, red, chunks...)
		require.Equal(t, want, outputOf(rec), "chunks %q", chunks)
		for _, ev := range rec.Events {
			require.True(t, utf8.ValidString(ev.Data))
			require.NotContains(t, ev.Data, "\uFFFD", "a UTF-8 sequence split across chunks must not become U+FFFD")
		}
	}
}

func TestRecorderHoldsBackSplitUTF8(t *testing.T) {
	text := "é中🙂x"
	for i := 1; i < len(text); i++ {
		for _, red := range []*Redactor{nil, DefaultRedactor()} {
			rec := recordChunks(t, red, text[:i], text[i:])
			require.Equal(t, text, outputOf(rec), "split at %d, redactor %v", i, red != nil)
			for _, ev := range rec.Events {
				require.NotContains(t, ev.Data, "\uFFFD")
			}
		}
	}
}

func TestRecorderInvalidUTF8BecomesReplacementCharacter(t *testing.T) {
	rec := recordChunks(t, nil, "a\xffb\r\n")
	require.Equal(t, "a\uFFFDb\r\n", outputOf(rec))
}

func TestRecorderLongControlFreeRunKeepsSecretsHidden(t *testing.T) {
	red := DefaultRedactor()
	filler := strings.Repeat("lorem ipsum ", 600) // 7200 bytes, no control character
	secret := "sk-ant-api03-" + strings.Repeat("Z", 40)
	for _, at := range []int{0, 1000, 3000, 4090, 6000, len(filler)} {
		text := filler[:at] + " " + secret + " " + filler[at:] + "\r\n"
		for _, chunk := range []int{7, 100, 1500, 4096} {
			var chunks []string
			for rest := text; rest != ""; {
				n := min(chunk, len(rest))
				chunks = append(chunks, rest[:n])
				rest = rest[n:]
			}
			got := outputOf(recordChunks(t, red, chunks...))
			require.NotContains(t, got, "ZZZZZZZZZZ", "secret at %d, chunks of %d", at, chunk)
			require.Equal(t, red.Redact(text), got, "secret at %d, chunks of %d", at, chunk)
		}
	}
}

// A control-free run longer than the hold-back limit is cut in the middle;
// secrets whose key or trigger word lands on that cut stay hidden.
func TestRecorderCutInsideLongRunKeepsSecretsHidden(t *testing.T) {
	red := DefaultRedactor()
	filler := strings.Repeat("lorem ipsum ", 600)
	for _, secret := range []string{"Bearer TOKENVALUE0123456789", "API_KEY=TOKENVALUE0123456789", "sk-ant-TOKENVALUE0123456789"} {
		const at = 4000
		text := filler[:at] + " " + secret + " " + filler[at:] + "\r\n"
		for d := -40; d <= 40; d++ {
			first := at + streamHoldKeep + d // the cut falls at about at+d
			got := outputOf(recordChunks(t, red, text[:first], text[first:]))
			require.NotContains(t, got, "TOKENVALUE", "%q, first chunk %d bytes", secret, first)
			require.Equal(t, red.Redact(text), got, "%q, first chunk %d bytes", secret, first)
		}
	}
}

func TestRecorderExtraLiteralSplitAcrossChunks(t *testing.T) {
	red, err := RedactionPolicy{Enabled: true, ExtraLiterals: []string{"my\ncorp-secret"}}.Compile()
	require.NoError(t, err)
	text := "start my\ncorp-secret end\r\n"
	for i := 0; i <= len(text); i++ {
		got := outputOf(recordChunks(t, red, text[:i], text[i:]))
		require.Equal(t, "start [REDACTED] end\r\n", got, "split at %d", i)
	}
}

func TestRecorderRawKeepsSecrets(t *testing.T) {
	text := "API_KEY=abcdef0123456789\r\n"
	require.Equal(t, text, outputOf(recordChunks(t, nil, text[:10], text[10:])))
	disabled, err := RedactionPolicy{}.Compile()
	require.NoError(t, err)
	require.Equal(t, text, outputOf(recordChunks(t, disabled, text)))
}

// Held output keeps its arrival time, and later input, resize and marker
// events wait behind it, so the file stays in time order.
func TestRecorderKeepsEventOrderBehindHeldOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.cast")
	r, err := newRecorder(path, Size{Rows: 24, Cols: 80}, nil, DefaultRedactor())
	require.NoError(t, err)
	r.output([]byte("$ ech")) // held: no control character yet
	r.flush()
	r.input([]byte("o TOKEN=abcdef123456\r")) // redacted on its own
	r.output([]byte("o TOKEN=abcdef123456"))
	r.flush()
	r.resize(Size{Rows: 30, Cols: 100})
	r.marker("after")
	r.flush()
	r.output([]byte("\r\n"))
	r.flush()
	require.NoError(t, r.close())

	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rec, err := asciicast.Read(f)
	require.NoError(t, err)
	var kinds []string
	for i, ev := range rec.Events {
		kinds = append(kinds, string(ev.Type)+":"+ev.Data)
		if i > 0 {
			require.GreaterOrEqual(t, ev.Time, rec.Events[i-1].Time)
		}
	}
	require.Equal(t, []string{
		"o:$ ech",
		"i:o TOKEN=[REDACTED]\r",
		"o:o TOKEN=[REDACTED]",
		"r:100x30",
		"m:after",
		"o:\r\n",
	}, kinds)
}

func TestRecorderHeader(t *testing.T) {
	rec := recordChunks(t, nil, "x")
	require.Equal(t, asciicast.Header{Version: 2, Width: 80, Height: 24, Timestamp: rec.Header.Timestamp,
		Env: map[string]string{"TERM": "xterm-256color", "SHELL": "/bin/sh"}}, rec.Header)
	require.NotZero(t, rec.Header.Timestamp)
}

func TestRecorderCreatesOwnerOnlyFileAndNeverOverwrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.cast")
	r, err := newRecorder(path, Size{Rows: 24, Cols: 80}, nil, nil)
	require.NoError(t, err)
	require.NoError(t, r.close())
	if runtime.GOOS != "windows" {
		st, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, fs.FileMode(0o600), st.Mode().Perm())
	}
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	_, err = newRecorder(path, Size{Rows: 24, Cols: 80}, nil, nil)
	require.ErrorIs(t, err, ErrFileExists)
	require.ErrorIs(t, err, fs.ErrExist)
	require.Equal(t, fmt.Sprintf("record_path: %q exists; ptywright never overwrites a recording", path), err.Error())
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.Equal(before, after), "existing recording untouched")
}
