package ptywrighttest_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/asciicast"
	"ptywright/ptywrighttest"
)

// The tests below use the helpers as a user's test suite would. Failing
// cases run in a child process (this test binary, one test selected, with
// childEnv naming the case) so their failure output can be checked.
const (
	childEnv    = "PTYWRIGHTTEST_CHILD"
	childDirEnv = "PTYWRIGHTTEST_DIR"
)

// small is a terminal size that keeps golden files short.
var small = ptywright.Size{Rows: 6, Cols: 40}

// printer runs a shell script that prints and then waits for input.
func printer(t testing.TB, script string) *ptywright.Session {
	t.Helper()
	return ptywrighttest.Start(t, ptywright.Options{
		Program: "/bin/sh",
		Args:    []string{"-c", "stty -echo; " + script + "; exec cat"},
		Size:    small,
		Env:     map[string]string{"LANG": "C.UTF-8"},
	})
}

const coloursScript = `printf 'plain \033[1;31mbold red\033[0m\n\033[44m on blue \033[0m 中文\n\033[2mdone\033[0m'`

func TestRequireScreenMatchesGolden(t *testing.T) {
	s := printer(t, coloursScript)
	ptywrighttest.ExpectText(t, s, "done")
	ptywrighttest.RequireScreen(t, s, "colours", ptywrighttest.WithStyles())
}

// A clock, a spinner, a temporary path and a random last row change from
// run to run; masks keep them out of the golden.
func TestMasksKeepVolatileRegionsFromBreakingGoldens(t *testing.T) {
	masks := []ptywrighttest.ScreenOption{
		ptywrighttest.MaskRegex(`\d\d:\d\d:\d\d`, '#'),
		ptywrighttest.MaskRect(1, 1, 1, 1),
		ptywrighttest.MaskRegex(`/tmp/tmp\.\w+`, '*'),
		ptywrighttest.IgnoreRowsAfter(3),
	}
	for _, tc := range []struct{ clock, spinner, path string }{ // shell words
		{`"$(date +%H:%M:%S)"`, `'|'`, `"$(mktemp -u)"`},
		{"00:00:00", "/", "/tmp/tmp.AAAAAAAAAA"},
		{"23:59:59", "-", "/tmp/tmp.zzzzzzzzzz"},
	} {
		s := printer(t, `printf 'built at %s\n[%s] working\n%s ok\nrandom %s' `+tc.clock+" "+tc.spinner+" "+tc.path+` $$`)
		ptywrighttest.ExpectText(t, s, "random")
		ptywrighttest.RequireScreen(t, s, "masked", masks...)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "masked.screen"))
	require.NoError(t, err)
	require.Equal(t, "built at ########\n[░] working\n******************* ok\n", string(golden))
}

func TestRequireSnapshotOfAReplayedScreen(t *testing.T) {
	rec, err := asciicast.Read(strings.NewReader(`{"version": 2, "width": 40, "height": 6}
[0.1, "o", "plain \u001b[1;31mbold red\u001b[0m\r\n\u001b[44m on blue \u001b[0m 中文\r\n\u001b[2mdone\u001b[0m"]
`))
	require.NoError(t, err)
	screen, err := ptywright.Replay(t.Context(), rec, ptywright.ReplayOptions{})
	require.NoError(t, err)
	// The same screen as the live printer's, so the same golden.
	ptywrighttest.RequireSnapshot(t, screen.Snapshot(true), "colours", ptywrighttest.WithStyles())
}

func TestExpectReturnsTheEvidence(t *testing.T) {
	s := printer(t, `printf 'ready> '`)
	res := ptywrighttest.Expect(t, s, ptywright.ScreenRegex(`(\w+)>`), ptywrighttest.Timeout(5*time.Second))
	require.True(t, res.Matched)
	require.Equal(t, "ready>", res.Snapshot.PlainText)
	ptywrighttest.Send(t, s, ptywright.Text("x"), ptywright.Press(ptywright.KeyEnter))
}

// runChild runs test name of this binary in a child process with mode in
// childEnv and returns its output and error.
func runChild(t *testing.T, name, mode, dir string, args ...string) (string, error) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, append([]string{"-test.run=^" + name + "$", "-test.v", "-test.count=1"}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"="+mode, childDirEnv+"="+dir, "PTYWRIGHT_UPDATE=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func childMode(t *testing.T, mode string) string {
	t.Helper()
	if os.Getenv(childEnv) != mode {
		t.Skipf("runs only as the child process of another test (%s=%s)", childEnv, mode)
	}
	return os.Getenv(childDirEnv)
}

func TestChildGolden(t *testing.T) {
	dir := childMode(t, "golden")
	s := printer(t, coloursScript)
	ptywrighttest.ExpectText(t, s, "done")
	ptywrighttest.RequireScreen(t, s, "sub/colours", ptywrighttest.GoldenDir(dir), ptywrighttest.WithStyles(), ptywrighttest.SettleFor(200*time.Millisecond))
}

func TestGoldenMismatchReportsADiffAndAPicture(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join(dir, "sub", "colours")
	require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
	require.NoError(t, os.WriteFile(golden+".screen", []byte("plain bold red\n on blue  中文\nfinished\n\n\n\n"), 0o644))
	styles, err := os.ReadFile(filepath.Join("testdata", "colours.styles"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(golden+".styles", bytes.Replace(styles, []byte("bold"), []byte("italic"), 1), 0o644))

	out, err := runChild(t, "TestChildGolden", "golden", dir)
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "the child test fails:\n%s", out)
	for _, want := range []string{
		"--- FAIL: TestChildGolden",
		"ptywrighttest: the screen settled (no change for 200ms) without matching; screen does not match " + golden + ".screen (run the test with -update to accept it)",
		"--- " + golden + ".screen (golden)",
		"+++ sub/colours (actual)",
		"@@ -1,6 +1,6 @@",
		"  plain bold red\n",
		"-finished\n",
		"+done\n",
		"screen does not match " + golden + ".styles",
		"-a: fg=idx:1 italic\n",
		"+a: fg=idx:1 bold\n",
		"picture of the actual screen: " + golden + ".failed.svg",
	} {
		require.Contains(t, out, want)
	}
	svg, err := os.ReadFile(golden + ".failed.svg")
	require.NoError(t, err)
	require.Contains(t, svgText(t, svg), "plain bold red")
}

func svgText(t *testing.T, svg []byte) string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return b.String()
		}
		require.NoError(t, err)
		if cd, ok := tok.(xml.CharData); ok {
			b.Write(cd)
		}
	}
}

func TestUpdateWritesGoldensThenTheyPass(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join(dir, "sub", "colours")
	require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
	require.NoError(t, os.WriteFile(golden+".screen", []byte("outdated\n"), 0o644))
	require.NoError(t, os.WriteFile(golden+".failed.svg", []byte("<svg/>"), 0o644))

	out, err := runChild(t, "TestChildGolden", "golden", dir, "-update")
	require.NoError(t, err, out)
	require.Contains(t, out, "--- PASS: TestChildGolden")
	for _, ext := range []string{".screen", ".styles"} {
		got, err := os.ReadFile(golden + ext)
		require.NoError(t, err)
		want, err := os.ReadFile(filepath.Join("testdata", "colours"+ext))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), ext)
	}
	_, err = os.Stat(golden + ".failed.svg")
	require.ErrorIs(t, err, os.ErrNotExist, "a stale failure picture is removed")

	out, err = runChild(t, "TestChildGolden", "golden", dir)
	require.NoError(t, err, "without -update the rewritten golden passes:\n%s", out)

	// PTYWRIGHT_UPDATE=1 works like -update.
	require.NoError(t, os.WriteFile(golden+".screen", []byte("outdated again\n"), 0o644))
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^TestChildGolden$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=golden", childDirEnv+"="+dir, "PTYWRIGHT_UPDATE=1")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, string(b))
	got, err := os.ReadFile(golden + ".screen")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(got), "plain bold red\n"))
}

func TestChildGoldenMissing(t *testing.T) {
	dir := childMode(t, "missing")
	s := printer(t, `printf 'brand new'`)
	ptywrighttest.ExpectText(t, s, "new")
	ptywrighttest.RequireScreen(t, s, "absent", ptywrighttest.GoldenDir(dir))
}

func TestMissingGoldenSaysHowToCreateIt(t *testing.T) {
	dir := t.TempDir()
	out, err := runChild(t, "TestChildGoldenMissing", "missing", dir)
	require.Error(t, err)
	require.Contains(t, out, "golden file "+filepath.Join(dir, "absent.screen")+" does not exist; run the test with -update to create it")
	require.Contains(t, out, "\tbrand new\n")
	_, err = os.Stat(filepath.Join(dir, "absent.screen"))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing is written without -update")
}

func TestChildExpectTimeout(t *testing.T) {
	childMode(t, "expect")
	s := printer(t, `printf 'status: \033[31mfailed\033[0m\r\nprompt> '`)
	ptywrighttest.ExpectText(t, s, "prompt>")
	ptywrighttest.ExpectText(t, s, "success", ptywrighttest.Timeout(200*time.Millisecond))
	t.Log("not reached")
}

func TestExpectFailureShowsTheScreenAndEscapedOutput(t *testing.T) {
	out, err := runChild(t, "TestChildExpectTimeout", "expect", "")
	require.Error(t, err)
	for _, want := range []string{
		`ptywrighttest: expect {"type":"contains_text","value":"success"}: wait for {"type":"contains_text","value":"success"}: ptywright: timed out after`,
		"screen (6x40, cursor row 1 col 8):",
		"\t  0|status: failed\n",
		"\t  1|prompt>\n",
		"(rows 2-5 blank)",
		"output tail (last 2000 characters, control codes escaped):",
		`status: \x1b[31mfailed\x1b[0m\r\r\n`, // printf's \r\n, the tty adds \r
		"\tprompt> \n",
	} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, "not reached", "Expect stops the test")
}
