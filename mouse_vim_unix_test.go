//go:build unix

package ptywright_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// Vim with `set mouse=a` (it turns on 1000, 1002 and SGR reports) does what
// clicking does in xterm: a click on a word (found by a text locator) puts
// the cursor there, a drag selects in visual mode. A program that turns on
// 1000 alone reads the X10 form; one that turned no mouse mode on gets
// nothing: ErrMouseNotEnabled.
func TestMouseInVim(t *testing.T) {
	vim, err := exec.LookPath("vim")
	if err != nil {
		t.Fatal("vim is not installed:", err)
	}
	file := filepath.Join(t.TempDir(), "words.txt")
	require.NoError(t, os.WriteFile(file, []byte("alpha beta\ngamma delta\nepsilon\n"), 0o600))
	for _, ttymouse := range []string{"sgr"} {
		t.Run(ttymouse, func(t *testing.T) {
			s := start(t, ptywright.Options{
				Program: vim,
				Args:    []string{"-u", "NONE", "-N", "-i", "NONE", "-n", "-c", "set mouse=a ttymouse=" + ttymouse, file},
				Env:     map[string]string{"TERM": "xterm"},
				Size:    ptywright.Size{Rows: 10, Cols: 40},
			})
			waitFor(t, s, ptywright.All(ptywright.ContainsText("epsilon"), ptywright.ScreenStable(100*time.Millisecond)))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := s.Mouse(ctx, ptywright.Mouse{Kind: ptywright.MouseClick, Text: "delta"})
			require.NoError(t, err)
			require.Equal(t, [2]int{1, 6}, [2]int{res.Row, res.Col})
			waitFor(t, s, ptywright.CursorAt(1, 6))
			_, err = s.Mouse(ctx, ptywright.Mouse{Kind: ptywright.MouseDrag, Row: 0, Col: 0, ToRow: 0, ToCol: 3})
			require.NoError(t, err)
			waitFor(t, s, ptywright.All(ptywright.ContainsText("-- VISUAL --"), ptywright.CursorAt(0, 3)))
		})
	}
	// The X10 form, read by a program that asked for it.
	s := sh(t, `stty -icanon -echo min 12; printf '\033[?1000hready\n'; head -c 12 | od -An -tx1 | tr -d ' \n'; echo; echo end; sleep 30`)
	waitFor(t, s, ptywright.ContainsText("ready"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = s.Mouse(ctx, ptywright.Mouse{Kind: ptywright.MouseClick, Row: 2, Col: 4})
	require.NoError(t, err)
	// CSI M, then 32 + button (0, then 3 for the release), 32 + col 5, 32 + row 3.
	waitFor(t, s, ptywright.ContainsText("1b5b4d2025231b5b4d232523\nend"))

	s = sh(t, "echo no mouse here; sleep 30")
	waitFor(t, s, ptywright.ContainsText("no mouse here"))
	_, err = s.Mouse(context.Background(), ptywright.Mouse{Kind: ptywright.MouseClick, Text: "mouse"})
	require.ErrorIs(t, err, ptywright.ErrMouseNotEnabled)
}
