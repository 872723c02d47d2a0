package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// needShell returns the path of a shell the test needs. A missing shell is
// a failure under CI and a skip with an install hint elsewhere.
func needShell(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	msg := name + " is not installed: run scripts/install-test-deps.sh"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// completionScript writes the binary's script for shell to a file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	res := runBinary(t, nil, "completions", shell)
	require.Equal(t, 0, res.code, res.stderr)
	require.Empty(t, res.stderr)
	path := filepath.Join(t.TempDir(), "ptywright."+shell)
	require.NoError(t, os.WriteFile(path, []byte(res.stdout), 0o600))
	return path
}

func TestCompletionScriptsParse(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			bin := needShell(t, shell)
			script := completionScript(t, shell)
			out, err := exec.Command(bin, "-n", script).CombinedOutput()
			require.NoError(t, err, "%s -n: %s", shell, out)
			require.Empty(t, string(out))
		})
	}
}

// Every script offers every subcommand and every flag the commands accept.
func TestCompletionScriptsCoverFlags(t *testing.T) {
	for shell, script := range completionScripts {
		t.Run(shell, func(t *testing.T) {
			for _, c := range append(commands(), adapterCommands()...) {
				require.Contains(t, script, c.name[strings.LastIndex(c.name, " ")+1:]) // "adapter send": send
				for _, name := range flagNames(c) {
					if shell == "fish" {
						require.Contains(t, script, "-l "+name)
					} else {
						require.Contains(t, script, "--"+name)
					}
				}
			}
		})
	}
}

var completionCases = []struct {
	line string   // the command line, completed at its end
	want []string // candidates that must be offered
	not  []string // candidates that must not
}{
	{"ptywright s", []string{"serve"}, []string{"run"}},
	{"ptywright ", []string{"run", "serve", "mcp", "snapshot", "start", "send", "wait", "list", "close", "attach", "adapter", "completions", "version"}, nil},
	{"ptywright m", []string{"mcp"}, []string{"snapshot"}},
	{"ptywright mcp --", []string{"--plugin", "--help"}, []string{"--stdio", "--socket"}},
	{"ptywright run --", []string{"--rows", "--cols", "--record", "--help"}, []string{"--stdio"}},
	{"ptywright snapshot --", []string{"--socket", "--session", "--adapter", "--svg", "--cells"}, []string{"--rows", "--stdio"}},
	{"ptywright serve --", []string{"--stdio", "--socket", "--framing", "--plugin", "--allow-plugin-load"}, []string{"--rows"}},
	{"ptywright serve --framing ", []string{"ndjson", "lsp"}, nil},
	{"ptywright completions ", []string{"bash", "zsh", "fish"}, nil},
	{"ptywright run -- ech", []string{"echo"}, []string{"--rows"}},
	{"ptywright send s1 --key ent", []string{"enter"}, []string{"escape"}},
	{"ptywright adapter ", []string{"start", "send", "turn", "state", "close"}, []string{"wait"}},
	{"ptywright attach --", []string{"--socket", "--control", "--detach-key", "--help"}, []string{"--json", "--text"}},
	{"ptywright adapter send e1 --", []string{"--param", "--params", "--timeout", "--socket", "--json"}, []string{"--text", "--key"}},
}

// zshSkip are the cases TestZshCompletion leaves to bash and fish: each
// zsh case costs a second (a zsh and its compinit), and the parts of the zsh
// script these go through are exercised by other cases ("adapter send e1
// --" descends into the adapter subcommands; the key names are the same
// list in every script; attach's branch is a plain _arguments, as
// close's).
var zshSkip = map[string]bool{
	"ptywright adapter ":          true,
	"ptywright send s1 --key ent": true,
	"ptywright attach --":         true,
}

func TestBashCompletion(t *testing.T) {
	bash := needShell(t, "bash")
	script := completionScript(t, "bash")
	for _, tc := range completionCases {
		t.Run(tc.line, func(t *testing.T) {
			words := strings.Fields(tc.line)
			if strings.HasSuffix(tc.line, " ") {
				words = append(words, "")
			}
			cmd := exec.Command(bash, append([]string{"-c",
				`script=$1; shift; source "$script"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ptywright; printf '%s\n' "${COMPREPLY[@]}"`,
				"bash", script}, words...)...)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			got := strings.Fields(string(out))
			for _, w := range tc.want {
				require.Contains(t, got, w)
			}
			for _, w := range tc.not {
				require.NotContains(t, got, w)
			}
		})
	}
}

func TestFishCompletion(t *testing.T) {
	fish := needShell(t, "fish")
	script := completionScript(t, "fish")
	for _, tc := range completionCases {
		t.Run(tc.line, func(t *testing.T) {
			out, err := exec.Command(fish, "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, script, tc.line).CombinedOutput()
			require.NoError(t, err, "%s", out)
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				cand, _, _ := strings.Cut(line, "\t")
				got = append(got, cand)
			}
			for _, w := range tc.want {
				require.Contains(t, got, w)
			}
			for _, w := range tc.not {
				require.NotContains(t, got, w)
			}
		})
	}
}

// zsh completes only in an interactive line editor, so this drives one on a
// PTY: type the line, press Tab, read the listed candidates off the screen.
func TestZshCompletion(t *testing.T) {
	zsh := needShell(t, "zsh")
	script := completionScript(t, "zsh")
	for _, tc := range completionCases {
		if zshSkip[tc.line] {
			continue
		}
		t.Run(tc.line, func(t *testing.T) {
			s, err := ptywright.Start(ptywright.Options{
				Program: zsh,
				Args:    []string{"-f", "-i"},
				Size:    ptywright.Size{Rows: 40, Cols: 200},
				Env:     map[string]string{"PS1": "zsh> ", "HOME": t.TempDir()},
			})
			require.NoError(t, err)
			defer s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// list-choices lists candidates without changing the line, so
			// a single match is listed too.
			setup := "autoload -U compinit && compinit -u -D && source " + script +
				" && bindkey '^I' list-choices && zstyle ':completion:*' list-separator '' && echo READY\r"
			require.NoError(t, s.Send(ctx, ptywright.Text(setup)))
			_, err = s.Wait(ctx, ptywright.ScreenRegex(`(?m)^READY$`))
			require.NoError(t, err)
			require.NoError(t, s.Send(ctx, ptywright.Text(tc.line+"\t")))
			// The listing is what follows the typed line (trailing spaces
			// are trimmed from screen text).
			line := strings.TrimSpace(tc.line)
			var all []ptywright.Matcher
			for _, w := range tc.want {
				all = append(all, ptywright.ScreenRegex(`(?ms)`+regexp.QuoteMeta(line)+`.*(^|\s)`+regexp.QuoteMeta(w)+`(\s|$)`))
			}
			res, err := s.Wait(ctx, ptywright.All(all...), ptywright.WithRedactor(ptywright.NoRedaction()))
			if err != nil {
				t.Fatalf("%v\nscreen:\n%s\ntranscript: %q", err, s.Snapshot(ptywright.SnapshotOptions{Raw: true}).PlainText, s.Transcript(ptywright.NoRedaction()))
			}
			text := res.Snapshot.PlainText
			listing := text[strings.LastIndex(text, line)+len(line):]
			got := strings.Fields(listing)
			for _, w := range tc.want {
				require.Contains(t, got, w, "listing:\n%s\nscreen:\n%s", listing, text)
			}
			for _, w := range tc.not {
				require.NotContains(t, got, w, "listing:\n%s", listing)
			}
		})
	}
}
