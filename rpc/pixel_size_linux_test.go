//go:build linux

package rpc

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// winsizeProgram prints the window size the program reads (TIOCGWINSZ):
// rows, cols, pixel width, pixel height.
const winsizeProgram = `$b="\0"x8; ioctl(STDIN, 0x5413, $b) or die "ioctl: $!"; @s=unpack("S4",$b); print "WS @s END\n"; sleep 30`

// TestPixelSizePast16BitsIsRefused: the PTY holds pixel sizes in 16 bits,
// so a pixel_width of 70000 would reach the program as 4464 while the
// snapshot claimed 70000. It is refused with -32602 naming the field, by
// session.create and session.resize alike, and the largest size that fits
// reaches the program whole.
func TestPixelSizePast16BitsIsRefused(t *testing.T) {
	_, err := exec.LookPath("perl")
	require.NoError(t, err, "perl reads TIOCGWINSZ (Debian's perl-base)")
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	for _, field := range []string{"pixel_width", "pixel_height"} {
		e := c.callErr("session.create", map[string]any{
			"program": "perl", "args": []string{"-e", winsizeProgram},
			"rows": 24, "cols": 80, field: 70000,
		})
		assert.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
		assert.Contains(t, e.Message, field+": must be between 0 and 65535, got 70000")
	}
	var created sessionResult
	c.do("session.create", map[string]any{
		"program": "perl", "args": []string{"-e", winsizeProgram},
		"rows": 24, "cols": 80, "pixel_width": 65535, "pixel_height": 600,
	}, &created)
	w := c.wait(created.Session, containsText("END"))
	assert.Contains(t, w.Snapshot.PlainText, "WS 24 80 65535 600 END")

	e := c.callErr("session.resize", map[string]any{"session": created.Session, "rows": 24, "cols": 80, "pixel_width": 1, "pixel_height": 65536})
	assert.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
	assert.Contains(t, e.Message, "pixel_height")
	var snap struct {
		Size struct {
			PixelWidth  int `json:"pixel_width"`
			PixelHeight int `json:"pixel_height"`
		} `json:"size"`
	}
	c.do("session.snapshot", map[string]any{"session": created.Session}, &snap)
	assert.Equal(t, 65535, snap.Size.PixelWidth, "the refused resize left the session as it was")
	assert.Equal(t, 600, snap.Size.PixelHeight)
}
