package ptywright_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

var recordStreams = flag.Bool("record-streams", false, "run real programs and rewrite testdata/streams/*.raw")

// streamStep sends an action (when set) and then waits for the screen to
// match (when set).
type streamStep struct {
	send ptywright.Action
	wait ptywright.Matcher
}

func typeText(s string) streamStep { return streamStep{send: ptywright.Text(s), wait: settled()} }

func press(k ptywright.Key) streamStep { return streamStep{send: ptywright.Press(k), wait: settled()} }

func settled() ptywright.Matcher { return ptywright.ScreenStable(200 * time.Millisecond) }

// streamRecipe is one recorded session: a program, a size and the steps
// that drive it.
type streamRecipe struct {
	name  string
	size  ptywright.Size
	prog  string
	args  []string
	env   map[string]string
	steps []streamStep
}

// TestRecordProgramStreams re-records the raw output of real programs under
// testdata/streams, which TestEngineDiffProgramStreams replays through both
// engines. It runs only with -record-streams: the recordings are committed
// so the differential test does not depend on the machine's programs.
func TestRecordProgramStreams(t *testing.T) {
	if !*recordStreams {
		t.Skip("re-record with: go test -run TestRecordProgramStreams -record-streams")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "sample.go")
	require.NoError(t, os.WriteFile(src, []byte(sampleSource(400)), 0o600))
	home := t.TempDir()
	env := map[string]string{"HOME": home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
	vimArgs := []string{"-u", "NONE", "-i", "NONE", "-N", "-n", "--cmd", "set title", src}
	vimSteps := []streamStep{
		{wait: ptywright.All(ptywright.ContainsText("package"), settled())},
		typeText(":set number\r"),
		typeText(":syntax on\r"),
		press(ptywright.Ctrl('d')), press(ptywright.Ctrl('d')), press(ptywright.Ctrl('u')),
		typeText("G"), typeText("gg"), typeText("20j"),
		press(ptywright.Ctrl('e')), press(ptywright.Ctrl('e')), press(ptywright.Ctrl('y')),
		typeText(":split\r"), typeText(":vsplit\r"),
		press(ptywright.Ctrl('w')), typeText("w"),
		press(ptywright.Ctrl('e')), press(ptywright.Ctrl('d')), typeText("10k"),
		typeText("ohello 中文 world, ✓ done"), press(ptywright.KeyEscape),
		typeText("0"), typeText("3x"), typeText("dd"), typeText("u"), typeText("P"),
		typeText("I\t"), press(ptywright.KeyEscape),
		typeText(":only\r"), typeText("30%"), typeText("zt"), typeText("zb"),
		typeText("/func\r"), typeText("n"), typeText("N"),
		typeText(":qa!\r"),
	}
	bashEnv := map[string]string{"HOME": home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "INPUTRC": "/dev/null",
		"PS1": `\[\e[1;32m\]user@host\[\e[0m\]:\[\e[1;34m\]\W\[\e[0m\]\$ `}
	bashSteps := []streamStep{
		{wait: ptywright.All(ptywright.ContainsText("host:"), settled())},
		typeText("echo hello world\r"),
		typeText("ls --color=always -la /\r"),
		typeText("echo abcdef"), press(ptywright.Ctrl('a')), press(ptywright.KeyRight), press(ptywright.KeyRight),
		press(ptywright.KeyRight), press(ptywright.KeyRight), press(ptywright.KeyRight), press(ptywright.KeyRight),
		typeText("XYZ"), press(ptywright.Ctrl('e')), press(ptywright.KeyBackspace), press(ptywright.KeyBackspace),
		press(ptywright.KeyLeft), press(ptywright.KeyLeft), press(ptywright.KeyDelete), typeText("\r"),
		typeText("echo " + strings.Repeat("long-argument-", 12) + "end"), press(ptywright.Ctrl('a')), press(ptywright.Ctrl('e')),
		press(ptywright.Ctrl('w')), press(ptywright.Ctrl('u')), typeText("printf '\\e[7mrev\\e[0m \\e[4munder\\e[0m\\n'\r"),
		typeText("seq 1 60\r"),
		press(ptywright.KeyUp), press(ptywright.KeyUp), press(ptywright.KeyDown), press(ptywright.Ctrl('c')),
		typeText("echo 中文字符 and more 中文"), press(ptywright.KeyLeft), press(ptywright.KeyLeft), press(ptywright.KeyLeft),
		press(ptywright.KeyLeft), press(ptywright.KeyLeft), press(ptywright.KeyLeft), press(ptywright.KeyLeft),
		press(ptywright.KeyLeft), press(ptywright.KeyLeft), typeText("X"), press(ptywright.KeyBackspace), press(ptywright.KeyDelete),
		press(ptywright.Ctrl('e')), typeText("\r"),
		press(ptywright.Ctrl('l')),
		// Last, as it meets a deliberate difference from x/vt (a wide
		// character at the right edge), after which the stream is not
		// compared: a command line of wide characters wrapping.
		typeText("echo " + strings.Repeat("中文", 30)), press(ptywright.Ctrl('a')), typeText("\r"),
		typeText("exit\r"),
	}
	printfScript := strings.Join([]string{
		`printf 'plain \033[1mbold\033[22m \033[2mdim\033[22m \033[3mitalic\033[23m \033[4munder\033[24m \033[4:3mcurly\033[4:0m \033[9mstrike\033[29m\n'`,
		`printf '\033[31mred\033[32mgreen\033[0m \033[91mbright\033[0m \033[41mbg\033[0m \033[38;5;208m208\033[0m \033[38;2;10;20;30mrgb\033[0m \033[38:2::200:100:50mcolon\033[0m\n'`,
		`printf 'a\tb\tc\td\n1234567\t8\n'`,
		`printf '中文字符 🙂 e\314\201 x\n'`,
		`printf '%0120d\n' 0`,
		`printf 'overwrite\rOVER\n'`,
		`printf 'back\b\bXY\n'`,
		`printf '\033(0lqqqk\nx  x\nmqqqj\033(B\n'`,
		`printf '\033[5;10Hplaced\033[10;1H'`,
		`printf '\033[2;20r\033[20;1H'; seq 1 30; printf '\033[r'`,
		`printf '\033[?25l'; printf 'hidden cursor\n'; printf '\033[?25h'`,
		`printf '\033]0;title from printf\007'`,
		`printf 'tail\033[K\n\033[1;44m erase with bg \033[K\033[0m\n'`,
		`sleep 0.3`,
	}, "; ")
	lessSteps := []streamStep{
		{wait: ptywright.All(ptywright.ContainsText("package"), settled())},
		typeText(" "), typeText(" "), typeText("b"), typeText("j"), typeText("k"),
		typeText("/func\r"), typeText("n"), typeText("G"), typeText("g"), typeText("q"),
	}
	topSteps := []streamStep{
		{wait: ptywright.All(ptywright.ContainsText("load average"), settled())},
		typeText("1"), typeText("c"), typeText("q"),
	}
	recipes := []streamRecipe{
		{name: "vim", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "vim", args: vimArgs, env: env, steps: vimSteps},
		{name: "vim", size: ptywright.Size{Rows: 40, Cols: 120}, prog: "vim", args: vimArgs, env: env, steps: vimSteps},
		{name: "bash", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "bash", args: []string{"--norc", "--noprofile", "-i"}, env: bashEnv, steps: bashSteps},
		{name: "printf", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "/bin/sh", args: []string{"-c", printfScript}, env: env,
			steps: []streamStep{{wait: ptywright.ProcessExited()}}},
		{name: "ls", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "/bin/sh", args: []string{"-c", "ls --color=always -la /usr/bin | head -150; ls -R --color=always /etc 2>/dev/null | head -200"}, env: env,
			steps: []streamStep{{wait: ptywright.ProcessExited()}}},
		{name: "top_batch", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "top", args: []string{"-b", "-n1", "-w", "80"}, env: env,
			steps: []streamStep{{wait: ptywright.ProcessExited()}}},
		{name: "top", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "top", args: []string{"-d", "0.3"}, env: env, steps: topSteps},
		{name: "less", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "less", args: []string{src}, env: env, steps: lessSteps},
	}
	if _, err := exec.LookPath("tmux"); err == nil {
		sock := fmt.Sprintf("ptyw-rec-%d", os.Getpid())
		t.Cleanup(func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() }) // Best effort: gone already when every pane exited.
		recipes = append(recipes, streamRecipe{
			name: "tmux", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "tmux",
			args: []string{"-L", sock, "-f", "/dev/null", "new-session", "bash --norc --noprofile"}, env: bashEnv,
			steps: []streamStep{
				{wait: ptywright.All(ptywright.Any(ptywright.ContainsText("host:"), ptywright.ContainsText("bash-")), settled())},
				typeText("seq 1 40\r"),
				press(ptywright.Ctrl('b')), typeText("%"),
				typeText("ls --color=always /usr/bin | head -60\r"),
				press(ptywright.Ctrl('b')), typeText("\""),
				typeText("echo bottom pane 中文\r"),
				press(ptywright.Ctrl('b')), typeText("o"), typeText("seq 100 130\r"),
				typeText("exit\r"), typeText("exit\r"), typeText("exit\r"),
			},
		})
	}
	require.NoError(t, os.MkdirAll("testdata/streams", 0o755))
	for _, r := range recipes {
		name := fmt.Sprintf("%s_%dx%d.raw", r.name, r.size.Rows, r.size.Cols)
		t.Run(name, func(t *testing.T) {
			raw := filepath.Join(dir, name)
			s, err := ptywright.Start(ptywright.Options{Program: r.prog, Args: r.args, Env: r.env, Dir: dir, Size: r.size, RawTranscriptPath: raw})
			require.NoError(t, err)
			for _, st := range r.steps {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				if st.send.Type != "" {
					require.NoError(t, s.Send(ctx, st.send))
					// Let the program start answering before waiting for its
					// screen to settle (a recording, not a timing assertion).
					time.Sleep(100 * time.Millisecond)
				}
				if st.wait.Type != "" {
					_, err := s.Wait(ctx, st.wait)
					require.NoError(t, err, "%s: waiting after %+v; screen:\n%s", name, st.send, s.Snapshot(ptywright.SnapshotOptions{Raw: true}).PlainText)
				}
				cancel()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			_, _ = s.Wait(ctx, ptywright.ProcessExited()) // Best effort: Close reaps it anyway.
			cancel()
			require.NoError(t, s.Close())
			data, err := os.ReadFile(raw)
			require.NoError(t, err)
			require.NotEmpty(t, data)
			require.NoError(t, os.WriteFile(filepath.Join("testdata/streams", name), data, 0o644))
		})
	}
}

// sampleSource is a Go-looking file of n lines for the editors and pagers
// to show, with a few wide characters.
func sampleSource(n int) string {
	var b strings.Builder
	b.WriteString("package sample\n\n")
	for i := 0; b.Len() >= 0 && i < n; i++ {
		switch i % 9 {
		case 0:
			fmt.Fprintf(&b, "// func%d does step %d of the plan; 注释 %d\n", i, i, i)
		case 1:
			fmt.Fprintf(&b, "func func%d(x int) (int, error) {\n", i)
		case 2:
			fmt.Fprintf(&b, "\tif x > %d {\n\t\treturn 0, fmt.Errorf(\"too big: %%d\", x)\n\t}\n", i)
		case 3:
			fmt.Fprintf(&b, "\ts := \"a fairly long string literal that goes past the eightieth column of the screen %d\"\n", i)
		default:
			fmt.Fprintf(&b, "\treturn x * %d, nil // ✓\n}\n", i)
		}
	}
	return b.String()
}
