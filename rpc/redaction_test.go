//go:build unix

package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// redactionBody is the random part of the synthetic key the tests print.
const redactionBody = "Xb7uK2pQ9wE4rT6yU1iO3pA5sD8fG0hJ2kL4zX6cV8bN1mQ3wE5rT7yU9iO2pA4sD6fG8hJ0kL"

// requireNoPiece fails if text shows any 6-character piece of secret.
func requireNoPiece(t *testing.T, text, secret string) {
	t.Helper()
	for i := 0; i+6 <= len(secret); i++ {
		require.NotContains(t, text, secret[i:i+6], "a piece of the secret leaked: %q", text)
	}
}

// outputOf collects the session.output notifications of session until
// their text contains want, skipping other sessions' notifications.
func outputOf(t *testing.T, c *client, session, want string) []string {
	t.Helper()
	var chunks []string
	for !strings.Contains(strings.Join(chunks, ""), want) {
		m := c.note()
		p := decodeNote(t, m)
		if p.Session == session && m.Method == notifyOutput {
			chunks = append(chunks, p.Output)
		}
	}
	return chunks
}

// TestSessionOutputSplitSecret: a program prints a key in two writes, with
// a pause shorter or longer than the hold-back between them. Joining the
// session.output notifications a subscribed client receives over a real
// socket never reassembles any piece of it.
func TestSessionOutputSplitSecret(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	c.do("server.set_notifications", map[string]any{"enabled": true}, nil)
	for _, pause := range []string{"0", "0.05", "0.3"} {
		for range 4 {
			id := c.sh(`printf 'KEY sk-ant-api03-Q7'; sleep ` + pause + `; printf '` + redactionBody + `AA\n'; echo after-secret; sleep 5`)
			chunks := outputOf(t, c, id, "after-secret")
			joined := strings.Join(chunks, "")
			require.Contains(t, joined, "KEY [REDACTED]", "%q", chunks)
			requireNoPiece(t, joined, "Q7"+redactionBody)

			var raw transcriptResult
			c.do("session.transcript", map[string]any{"session": id, "redact": false}, &raw)
			require.Contains(t, raw.Text, "sk-ant-api03-Q7"+redactionBody, "the program did print the key whole")
			c.do("session.close", map[string]any{"session": id}, nil)
		}
	}
}

// TestTranscriptCutInsideSecretOverRPC: transcript_max_chars and a wait's
// transcript_tail cut inside a key; neither shows the part after the cut.
func TestTranscriptCutInsideSecretOverRPC(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	secret := "sk-ant-api03-" + redactionBody + "AA"

	id := c.create(map[string]any{"program": "/bin/sh", "args": []string{"-c", `printf 'header\nkey: ` + secret + `\nend-mark\n'; sleep 5`}, "transcript_max_chars": 60})
	c.wait(id, containsText("end-mark"))
	var raw, red transcriptResult
	c.do("session.transcript", map[string]any{"session": id, "redact": false}, &raw)
	require.NotContains(t, raw.Text, "sk-ant", "the bound cut inside the key")
	require.Contains(t, raw.Text, redactionBody[len(redactionBody)-20:])
	c.do("session.transcript", map[string]any{"session": id}, &red)
	require.True(t, strings.HasPrefix(red.Text, "[REDACTED]"), "%q", red.Text)
	requireNoPiece(t, red.Text, redactionBody)

	filler := strings.Repeat("f", 2000-40) // a wait's transcript tail is its last 2000 characters
	id = c.sh(`printf 'key: ` + secret + `\n` + filler + `\ntail-mark\n'; sleep 5`)
	res := c.wait(id, containsText("tail-mark"))
	require.True(t, strings.HasPrefix(res.TranscriptTail, "[REDACTED]\r\n"), "%q", res.TranscriptTail[:40])
	requireNoPiece(t, res.TranscriptTail, redactionBody)
}

// TestAdapterExtractIsRedacted: adapter.extract answers redacted like every
// other read; "redact": false is the explicit way to the raw answer.
func TestAdapterExtractIsRedacted(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	a := c.startAdapter(map[string]any{"plugin": "echo"})
	secret := "sk-ant-api03-Wq3Er5Ty7Ui9Op1As3Df5Gh7AA"
	c.sendText(a.Adapter, "ANSWER{"+secret+"}")

	params := map[string]any{"adapter": a.Adapter, "sentinels": []string{"ANSWER{", "}"}}
	var ans struct{ Text, Method string }
	c.do("adapter.extract", params, &ans)
	require.Equal(t, "[REDACTED]", ans.Text)

	params["redaction"] = map[string]any{"enabled": true, "extra_literals": []string{"ANSWER"}}
	c.do("adapter.extract", map[string]any{"adapter": a.Adapter, "regex": `(\S+)\{`, "redaction": params["redaction"]}, &ans)
	require.Equal(t, "[REDACTED]", ans.Text, "per-call rules apply too")

	delete(params, "redaction")
	params["redact"] = false
	c.do("adapter.extract", params, &ans)
	require.Equal(t, secret, ans.Text)

	params["redact"] = "no"
	e := c.callErr("adapter.extract", params)
	require.Equal(t, int64(CodeInvalidParams), e.Code)
	raw, _ := json.Marshal(e)
	require.NotContains(t, string(raw), secret)
}

// TestStartErrorsAreNotRedacted: ordinary error text keeps its words; the
// default patterns used to read "/etc/passwd: permission denied" as a
// password assignment.
func TestStartErrorsAreNotRedacted(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	e := c.callErr("session.create", map[string]any{"program": "/etc/passwd"})
	require.NotNil(t, e)
	require.Contains(t, e.Message, `/etc/passwd`)
	require.NotContains(t, e.Message, "[REDACTED]")

	id := c.sh(`grep -H ^root /etc/passwd; echo grep-done; sleep 5`)
	c.wait(id, containsText("grep-done"))
	var tr transcriptResult
	c.do("session.transcript", map[string]any{"session": id}, &tr)
	require.Contains(t, tr.Text, "/etc/passwd:root:")
	require.NotContains(t, tr.Text, "[REDACTED]")
}
