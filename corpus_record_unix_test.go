//go:build unix

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

var recordCorpus = flag.String("record-corpus", "", "re-record testdata/corpus: all, or a comma-separated list of recipe names")

func resize(rows, cols int) streamStep {
	return streamStep{send: ptywright.Resize(rows, cols), wait: settled()}
}

func waitText(s string) streamStep {
	return streamStep{wait: ptywright.All(ptywright.ContainsText(s), settled())}
}

// corpusRecipes are the sessions of the differential corpus: real programs
// the test scripts install, driven through what a user does with them,
// resizes included. TestCorpusMatchesTmux replays each recording into tmux
// and into our engine.
func corpusRecipes(t *testing.T, dir string) []streamRecipe {
	src := filepath.Join(dir, "sample.go")
	require.NoError(t, os.WriteFile(src, []byte(sampleSource(120)), 0o600))
	home := filepath.Join(dir, "home")
	require.NoError(t, os.MkdirAll(home, 0o700))
	env := map[string]string{"HOME": home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "xterm-256color"}
	bashEnv := map[string]string{"HOME": home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "INPUTRC": "/dev/null", "PS1": `\[\e[1;32m\]host\[\e[0m\]:\w\$ `}
	bash := []string{"--norc", "--noprofile", "-i"}

	// A small repository with a change for git add -p.
	repo := filepath.Join(dir, "repo")
	require.NoError(t, os.MkdirAll(repo, 0o700))
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	git("init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"), 0o600))
	git("add", "a.txt")
	git("commit", "-qm", "first")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nTEN\neleven\n"), 0o600))

	// A repository whose commit titles hold wide and accented characters,
	// for tig (issue 34: DCH must move wide characters whole).
	wide := filepath.Join(dir, "wide")
	require.NoError(t, os.MkdirAll(wide, 0o700))
	wideGit := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", wide, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	wideGit("init", "-q")
	for _, title := range []string{"first", "wide title (ünï 中文)", "more 中文 and ✓ marks"} {
		wideGit("commit", "-q", "--allow-empty", "-m", title)
	}

	return []streamRecipe{
		{name: "bash_resize", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "bash", args: bash, env: bashEnv, steps: []streamStep{
			waitText("host:"), typeText("seq 1 23; printf last\r"), waitText("last"),
			// Defect 1: the shell's rows must stay on screen when it shrinks.
			resize(20, 80), resize(16, 80), resize(24, 80),
			typeText("echo after\r"), waitText("after"), typeText("exit\r"),
		}},
		{name: "bash_emoji", size: ptywright.Size{Rows: 10, Cols: 60}, prog: "bash", args: bash, env: bashEnv, steps: []streamStep{
			// Defect 3: readline counts ❤️ as 1 and 👍🏽 as 4.
			waitText("host:"), typeText("echo a👍🏽b❤️c"), press(ptywright.KeyLeft), press(ptywright.KeyLeft), press(ptywright.KeyLeft),
			typeText("Z"), typeText("\r"), typeText("echo 中文 e\u0301 🇫🇷 done\r"), waitText("done"), typeText("exit\r"),
		}},
		{name: "printf_styles", size: ptywright.Size{Rows: 10, Cols: 60}, prog: "/bin/sh", env: env, args: []string{"-c",
			// Defects 4 and 5: the title stack, SGR 21, strikethrough, blink,
			// a wide character on a background.
			`printf '\033]2;shell\007\033[22;0t\033]2;inner\007plain \033[21mdouble\033[0m \033[9mstrike\033[0m \033[5mblink\033[0m \033[41m中文\033[0m\n\033[23;0t'; sleep 0.3`},
			steps: []streamStep{{wait: ptywright.ProcessExited()}}},
		{name: "dialog", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "bash", args: bash, env: bashEnv, steps: []streamStep{
			// Defect 2: after dialog, the shell's output lands under its
			// command line, not under the old box.
			waitText("host:"), typeText("dialog --yesno 'Proceed with the plan?' 8 40; echo AFTER\r"), waitText("Proceed"),
			press(ptywright.KeyTab), press(ptywright.KeyEnter), waitText("AFTER"), typeText("exit\r"),
		}},
		{name: "whiptail", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "bash", args: bash, env: bashEnv, steps: []streamStep{
			waitText("host:"), typeText("whiptail --menu 'Pick one' 15 40 4 a Alpha b Beta c Gamma; echo DONE\r"), waitText("Alpha"),
			press(ptywright.KeyDown), press(ptywright.KeyDown), press(ptywright.KeyEnter), waitText("DONE"), typeText("exit\r"),
		}},
		{name: "less", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "less", args: []string{src}, env: env, steps: []streamStep{
			waitText("package"), typeText(" "), typeText("/func1\r"), typeText("n"), typeText("N"),
			resize(30, 100), typeText("G"), resize(20, 70), typeText("g"), typeText("q"),
		}},
		{name: "man", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "man", args: []string{"ls"}, env: map[string]string{
			"HOME": home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "MANPAGER": "less", "PAGER": "less", "MANWIDTH": "80"}, steps: []streamStep{
			waitText("LS(1)"), typeText(" "), typeText("/sort\r"), typeText("n"), resize(30, 80), typeText("b"), typeText("q"),
		}},
		{name: "vim", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "vim", args: []string{"-u", "NONE", "-i", "NONE", "-N", "-n", src}, env: env, steps: []streamStep{
			waitText("package"), typeText(":set nu\r"), typeText(":syntax on\r"), press(ptywright.Ctrl('d')),
			typeText(":split\r"), typeText(":vsplit\r"), typeText("Vjj"), press(ptywright.KeyEscape),
			typeText("ohello 中文 ✓"), press(ptywright.KeyEscape), resize(30, 100), typeText("/func\r"), resize(20, 80),
			typeText(":qa!\r"),
		}},
		{name: "vim", size: ptywright.Size{Rows: 40, Cols: 120}, prog: "vim", args: []string{"-u", "NONE", "-i", "NONE", "-N", "-n", "-c", "set title", src}, env: env, steps: []streamStep{
			waitText("package"), typeText(":set nu\r"), typeText(":syntax on\r"), typeText("20G"), typeText("vjjj>"),
			typeText(":vsplit\r"), press(ptywright.Ctrl('d')), resize(24, 80), typeText("/注释\r"), resize(40, 120), typeText(":qa!\r"),
		}},
		{name: "watch", size: ptywright.Size{Rows: 12, Cols: 60}, prog: "watch", args: []string{"-n", "0.5", "-t", "printf 'tick 中文\\n'; seq 1 20"}, env: env, steps: []streamStep{
			waitText("tick"), resize(8, 60), waitText("tick"), resize(14, 50), waitText("tick"), press(ptywright.Ctrl('c')),
		}},
		{name: "htop", size: ptywright.Size{Rows: 24, Cols: 100}, prog: "htop", args: []string{"-d", "50"}, env: env, steps: []streamStep{
			waitText("Load average"), press(ptywright.F(5)), press(ptywright.F(5)), press(ptywright.F(6)), press(ptywright.KeyEscape),
			resize(30, 120), press(ptywright.F(1)), press(ptywright.KeyEscape), typeText("q"),
		}},
		{name: "top", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "top", args: []string{"-d", "5"}, env: env, steps: []streamStep{
			waitText("load average"), typeText("1"), resize(30, 100), typeText("q"),
		}},
		{name: "python3", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "python3", args: []string{"-q"}, env: env, steps: []streamStep{
			waitText(">>>"), typeText("1 + 1\r"), typeText("for i in range(3):\r"), typeText("    print(i * '中')\r"), typeText("\r"),
			typeText("'héllo'.upper()\r"), waitText("HÉLLO"), typeText("exit()\r"),
		}},
		{name: "nano", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "nano", args: []string{filepath.Join(dir, "note.txt")}, env: env, steps: []streamStep{
			waitText("GNU nano"), typeText("first line\rsecond 中文 line\r"), press(ptywright.KeyUp), resize(20, 70),
			press(ptywright.Ctrl('x')), waitText("Save"), typeText("n"),
		}},
		{name: "git_add_p", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "git", args: []string{"-C", repo, "-c", "color.ui=always", "add", "-p"},
			env: map[string]string{"HOME": home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "GIT_PAGER": "cat"}, steps: []streamStep{
				waitText("Stage"), typeText("y\r"), waitText("Stage"), typeText("n\r"), {wait: ptywright.ProcessExited()},
			}},
		{name: "mc", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "mc", args: []string{"-u", dir, home}, env: env, steps: []streamStep{
			waitText("Name"), press(ptywright.F(9)), press(ptywright.KeyDown), press(ptywright.KeyEscape), press(ptywright.KeyEscape),
			press(ptywright.KeyDown), press(ptywright.KeyTab), resize(30, 100), press(ptywright.F(10)), {wait: ptywright.ProcessExited()},
		}},
		// btop's "terminal size too small" screen is drawn after ED 2 on a
		// black background (issue 34: ED 2 fills with the pen's background).
		{name: "btop", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "btop", args: []string{"--utf-force"}, env: env, steps: []streamStep{
			waitText("cpu"), resize(12, 40), waitText("too small"), resize(24, 80), waitText("cpu"), typeText("q"),
		}},
		{name: "tig", size: ptywright.Size{Rows: 40, Cols: 120}, prog: "tig", args: []string{"-C", wide}, env: env, steps: []streamStep{
			// Toggling columns shifts the titles: ncurses moves them with
			// DCH and ICH.
			waitText("中文"), typeText("D"), typeText("D"), typeText("A"), typeText("A"), typeText("#"), typeText("#"),
			press(ptywright.KeyDown), press(ptywright.KeyEnter), press(ptywright.KeyDown), typeText("q"),
			resize(30, 100), typeText("D"), typeText("q"),
		}},
		{name: "ncdu", size: ptywright.Size{Rows: 24, Cols: 80}, prog: "ncdu", args: []string{"-x", dir}, env: env, steps: []streamStep{
			waitText("ncdu"), press(ptywright.KeyDown), press(ptywright.KeyDown), resize(20, 90), typeText("?"), typeText("q"), typeText("q"),
		}},
	}
}

// TestRecordCorpus re-records testdata/corpus (asciicast v2, output and
// resizes, unredacted), which TestCorpusMatchesTmux replays. It runs only
// with -record-corpus: the recordings are committed so the comparison does
// not depend on the programs' versions.
func TestRecordCorpus(t *testing.T) {
	if *recordCorpus == "" {
		t.Skip("re-record with: go test -run TestRecordCorpus -record-corpus all")
	}
	dir := t.TempDir()
	want := map[string]bool{}
	for _, n := range strings.Split(*recordCorpus, ",") {
		want[n] = true
	}
	require.NoError(t, os.MkdirAll("testdata/corpus", 0o755))
	for _, r := range corpusRecipes(t, dir) {
		if !want["all"] && !want[r.name] {
			continue
		}
		name := fmt.Sprintf("%s_%dx%d.cast", r.name, r.size.Rows, r.size.Cols)
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			s, err := ptywright.Start(ptywright.Options{Program: r.prog, Args: r.args, Env: r.env, Dir: dir, Size: r.size, RecordPath: path, RecordRaw: true})
			require.NoError(t, err)
			for _, st := range r.steps {
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				if st.send.Type != "" {
					require.NoError(t, s.Send(ctx, st.send))
					// Let the program start answering before waiting for its
					// screen to settle (a recording, not a timing assertion).
					time.Sleep(100 * time.Millisecond)
				}
				if st.wait.Type != "" {
					_, err := s.Wait(ctx, st.wait)
					require.NoError(t, err, "%s: waiting after %+v; screen:\n%s\ntranscript: %q", name, st.send, s.Snapshot(ptywright.SnapshotOptions{Raw: true}).PlainText, s.Transcript(nil))
				}
				cancel()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			_, _ = s.Wait(ctx, ptywright.ProcessExited()) // Best effort: Close reaps it anyway.
			cancel()
			require.NoError(t, s.Close())
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join("testdata/corpus", name), data, 0o644))
		})
	}
}
