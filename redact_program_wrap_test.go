package ptywright_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/secrets"
)

// The made-up secrets typed into the real Claude Code and Codex for the
// captures below (testdata/fixtures/*/CAPTURES.md, "Long secrets").
const (
	capturedAntKey   = "sk-ant-api03-PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA-2O76UMFxFkM-R5Kjp1vRt_1fjORS-6ilI8ihN5KXSc7Tvo-FdnXsiAA"
	capturedProjKey  = "sk-proj-FYY-kv5ZJr3J1TWDtkwtDDb_xHKas1VOqg6YYZYn9ZhyiA4uoRgnatmUdjAWtGSU8po_799NksnRH9ucAUsdMlHUvTCQCyEZDz-TddJ8HyS5SUkCnD8zRA9a9SkpXz9w3QlY7Zkuvqdt7s8Stqcbnr"
	capturedGHToken  = "ghp_B3m03nbqnsGpWLuqIA1id6Vw5DQL05HA064G"
	capturedBearer   = "qtc4xatws8phP9nhFyJfm-5di4P-zJ59-FHz5r1pY4OjE2jB"
	capturedBearerCx = "qtc4xatws8phP9nhFyJfm5di4PzJ59FHz5r1pY4OjE2jB" // Codex's: the dashes taken out
)

// programWrapCaptures are screens where the program itself wrapped a long
// secret: the break falls before the right edge or the continuation row
// starts with an indent, so no row fills the width.
var programWrapCaptures = []string{
	"claude_code/prompt_long_secret_24x80",
	"claude_code/completed_turn_long_secret_24x80",
	"claude_code/prompt_long_export_secret_24x80",
	"claude_code/completed_turn_long_export_secret_24x80",
	"claude_code/prompt_token_wrapped_whole_24x80",
	"claude_code/completed_turn_token_wrapped_whole_24x80",
	"claude_code/prompt_long_bearer_24x80",
	"claude_code/completed_turn_long_bearer_24x80",
	"claude_code/prompt_long_secret_40x120",
	"claude_code/completed_turn_long_secret_40x120",
	"claude_code/completed_turn_long_export_secret_40x120",
	"codex/composer_long_secret_24x80",
	"codex/unscripted_long_secret_24x80",
	"codex/composer_long_bearer_24x80",
	"codex/completed_long_bearer_secret_24x80",
	"codex/composer_long_secret_40x120",
	"codex/completed_long_secret_40x120",
}

var captureSize = regexp.MustCompile(`_(\d+)x(\d+)$`)

// replayCapture writes a capture's .ansi rows into a fresh Screen of the
// capture's size, as the program's output would have drawn them.
func replayCapture(t *testing.T, name string) ptywright.ScreenSnapshot {
	t.Helper()
	m := captureSize.FindStringSubmatch(name)
	require.NotNil(t, m, name)
	rows, _ := strconv.Atoi(m[1])
	cols, _ := strconv.Atoi(m[2])
	raw, err := os.ReadFile(filepath.Join("testdata/fixtures", name+".ansi"))
	require.NoError(t, err)
	scr, err := ptywright.NewScreen(ptywright.Size{Rows: rows, Cols: cols})
	require.NoError(t, err)
	t.Cleanup(func() { _ = scr.Close() })
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	require.Len(t, lines, rows, name)
	_, err = scr.Write([]byte(strings.Join(lines, "\r\n")))
	require.NoError(t, err)
	return scr.Snapshot(true)
}

// leakedPiece returns the first piece of secret longer than 8 bytes that
// text contains, "" if none.
func leakedPiece(text, secret string) string {
	const n = 9
	for i := 0; i+n <= len(secret); i++ {
		if strings.Contains(text, secret[i:i+n]) {
			return secret[i : i+n]
		}
	}
	return ""
}

// TestProgramWrappedSecretsAreRedacted: the real Claude Code and Codex lay
// out a long prompt or answer themselves, so a long key is split over rows
// that do not fill the width, the continuation indented. No piece of any
// key survives in the redacted text or cells from the row where the key
// starts on, and each capture does show a key raw (it is what it claims
// to be). A key whose start has scrolled off the top cannot be told from
// other text (completed_turn_long_export_secret_24x80's first row). The
// snapshot given is left as it was: the redacted cells are a copy.
func TestProgramWrappedSecretsAreRedacted(t *testing.T) {
	secrets := []string{capturedAntKey, capturedProjKey, capturedGHToken, capturedBearer, capturedBearerCx}
	for _, name := range programWrapCaptures {
		t.Run(name, func(t *testing.T) {
			raw := replayCapture(t, name)
			before := slices.Clone(raw.Cells)
			red := ptywright.RedactSnapshot(raw, nil)
			require.Len(t, red.Cells, len(raw.Cells))
			require.Equal(t, before, raw.Cells, "the snapshot redacted is left as it was")
			require.NotEqual(t, raw.Cells, red.Cells, "cells were redacted")
			rawRows := strings.Split(raw.PlainText, "\n")
			textRows := strings.Split(red.PlainText, "\n")
			cellRows := make([]string, red.Size.Rows)
			for _, c := range red.Cells {
				cellRows[c.Row] += c.Text
			}
			shown := 0
			for _, s := range secrets {
				head := slices.IndexFunc(rawRows, func(row string) bool { return strings.Contains(row, s[:9]) })
				if head < 0 {
					continue
				}
				shown++
				text, cells := strings.Join(textRows[head:], "\n"), strings.Join(cellRows[head:], "\n")
				require.Empty(t, leakedPiece(text, s), "a piece of %s leaked:\n%s", s[:12], text)
				require.Empty(t, leakedPiece(cells, s), "a piece of %s leaked in the cells:\n%s", s[:12], cells)
			}
			require.NotZero(t, shown, "the capture shows a key:\n%s", raw.PlainText)
		})
	}
}

// TestProgramWrapReadingKeepsOrdinaryText: reading rows as the programs
// wrap them hides nothing more than reading each row alone on every other
// real capture of Claude Code and Codex (prose, lists, dialogs, tool
// output: many rows continue in the next), and on made-up rows that reach
// the margin before an indented row that is not a secret's continuation.
func TestProgramWrapReadingKeepsOrdinaryText(t *testing.T) {
	skip := map[string]bool{}
	for _, name := range programWrapCaptures {
		skip[name] = true
	}
	checked, continued := 0, 0
	for _, dir := range []string{"claude_code", "codex"} {
		paths, err := filepath.Glob(filepath.Join("testdata/fixtures", dir, "*.ansi"))
		require.NoError(t, err)
		for _, p := range paths {
			name := dir + "/" + strings.TrimSuffix(filepath.Base(p), ".ansi")
			if skip[name] || !captureSize.MatchString(name) {
				continue
			}
			snap := replayCapture(t, name)
			rows := strings.Split(snap.PlainText, "\n")
			for i := 0; i+1 < len(rows); i++ {
				if _, _, ok := secrets.Continues(rows[i], rows[i+1], snap.Size.Cols); ok {
					continued++
				}
			}
			unknown := snap
			unknown.Size.Cols = 0 // no row read as wrapped
			want := ptywright.RedactSnapshot(unknown, nil)
			got := ptywright.RedactSnapshot(snap, nil)
			require.Equal(t, want.PlainText, got.PlainText, name)
			require.Equal(t, want.Cells, got.Cells, name)
			checked++
		}
	}
	require.Greater(t, checked, 100)
	require.Greater(t, continued, 100, "the captures exercise the reading")

	t.Logf("%d captures, %d rows that continue in the next", checked, continued)

	for _, tt := range []struct {
		name, text string
		continues  bool // the first row is read as going on in the second
	}{
		{"a short line then a normal line", "● Done.\nnext line", false},
		{"prose to the margin, an indented line after", "● The service reads the token and password\n  fields from the vault when it starts.", true},
		{"an auth scheme at the margin, prose after", "● Every request sends Authorization: Bearer\n  headers, as the gateway requires it.", true},
		{"a key word at the margin, a short value after", "● The config file sets the secret_key option\n  = none until you change it.", true},
		{"a hyphenated word broken at the margin", "● It has a well-documented, small and self-\n  contained interface for the client.", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			scr, err := ptywright.NewScreen(ptywright.Size{Rows: 4, Cols: 44})
			require.NoError(t, err)
			_, err = scr.Write([]byte(strings.ReplaceAll(tt.text, "\n", "\r\n")))
			require.NoError(t, err)
			snap := scr.Snapshot(true)
			require.Equal(t, tt.text, snap.PlainText)
			rows := strings.Split(tt.text, "\n")
			_, _, ok := secrets.Continues(rows[0], rows[1], 44)
			require.Equal(t, tt.continues, ok, "read as continued")
			red := ptywright.RedactSnapshot(snap, nil)
			require.Equal(t, tt.text, red.PlainText)
			require.Equal(t, snap.Cells, red.Cells)
		})
	}
}

// BenchmarkRedactScreen measures the redaction of one screen as every wait
// and snapshot does it, on real captures without a secret (the common
// case: wrapped prose, many rows that continue in the next) and on one
// with a wrapped key; text alone and with cells.
func BenchmarkRedactScreen(b *testing.B) {
	for _, name := range []string{
		"claude_code/completed_turn_prose_mentions_dialogs_40x120",
		"claude_code/completed_turn_long_answer_scrolled_24x80",
		"codex/completed_long_40x120",
		"claude_code/completed_turn_long_export_secret_40x120",
	} {
		t := &testing.T{}
		snap := replayCapture(t, name)
		text := snap
		text.Cells = nil
		for _, tc := range []struct {
			kind string
			snap ptywright.ScreenSnapshot
		}{{"text", text}, {"cells", snap}} {
			b.Run(name+"/"+tc.kind, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = ptywright.RedactSnapshot(tc.snap, nil)
				}
			})
		}
	}
}
