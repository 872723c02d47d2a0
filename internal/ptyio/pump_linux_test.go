package ptyio_test

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"ptywright/internal/ptyio"
)

// openPTY returns a PTY master, opened as the runtime opens files (in the
// poller), and the path of its slave.
func openPTY(t *testing.T) (*os.File, string) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	rc, err := m.SyscallConn()
	require.NoError(t, err)
	var n int
	var ioErr error
	require.NoError(t, rc.Control(func(fd uintptr) {
		if ioErr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ioErr == nil {
			n, ioErr = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
		}
	}))
	require.NoError(t, ioErr)
	return m, "/dev/pts/" + strconv.Itoa(n)
}

// collector is a Pump's feed that keeps what it is fed and signals each
// feed.
type collector struct {
	mu  sync.Mutex
	out bytes.Buffer
	fed chan struct{}
}

func (c *collector) feed(chunks [][]byte) bool {
	c.mu.Lock()
	for _, b := range chunks {
		c.out.Write(b)
	}
	c.mu.Unlock()
	select {
	case c.fed <- struct{}{}:
	default:
	}
	return false
}

// waitFor waits until what was fed holds s.
func (c *collector) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		got := c.out.String()
		c.mu.Unlock()
		if bytes.Contains([]byte(got), []byte(s)) {
			return
		}
		select {
		case <-c.fed:
		case <-deadline:
			t.Fatalf("%q never came; fed %q", s, got)
		}
	}
}

// TestPumpReadsOnAfterEIOUntilExited: a Linux master reads EIO whenever
// no file has the slave open; until the child has exited the slave may be
// opened again and written to, so Read waits that out. Once exited is
// closed (and the deadline set that wakes it), the next EIO ends it, after
// what was written before.
func TestPumpReadsOnAfterEIOUntilExited(t *testing.T) {
	m, slavePath := openPTY(t)
	c := &collector{fed: make(chan struct{}, 1)}
	p := ptyio.NewPump(c.feed)
	exited := make(chan struct{})
	parsed := make(chan struct{})
	go func() { defer close(parsed); p.Run(m, exited) }()

	openSlave := func() *os.File {
		sl, err := os.OpenFile(slavePath, os.O_RDWR|syscall.O_NOCTTY, 0)
		require.NoError(t, err)
		return sl
	}
	sl := openSlave()
	_, err := sl.Write([]byte("one\n"))
	require.NoError(t, err)
	c.waitFor(t, "one")
	require.NoError(t, sl.Close()) // The master reads EIO from now on.

	sl = openSlave() // As /dev/tty does.
	_, err = sl.Write([]byte("two\n"))
	require.NoError(t, err)
	c.waitFor(t, "two")
	_, err = sl.Write([]byte("three\n"))
	require.NoError(t, err)
	require.NoError(t, sl.Close())

	close(exited)
	require.NoError(t, m.SetReadDeadline(time.Unix(1, 0)))
	select {
	case <-parsed:
	case <-time.After(10 * time.Second):
		t.Fatal("the pump did not end at EIO after the exit")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	require.Equal(t, "one\r\ntwo\r\nthree\r\n", c.out.String())
}

// TestPumpTakesMemoryAsTheOutputAsks: lines that come one at a time are
// read into one small buffer and fed by the reader itself, with no parser
// goroutine; a flood grows the buffers and starts the parser, and arrives
// whole and in order, through buffers that go round; once Run returns the
// pump holds no buffer.
func TestPumpTakesMemoryAsTheOutputAsks(t *testing.T) {
	m, slavePath := openPTY(t)
	c := &collector{fed: make(chan struct{}, 1)}
	p := ptyio.NewPump(c.feed)
	exited := make(chan struct{})
	ran := make(chan struct{})
	go func() { defer close(ran); p.Run(m, exited) }()
	sl, err := os.OpenFile(slavePath, os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	defer sl.Close()
	// Raw, so the line discipline passes the flood through as written.
	termios, err := unix.IoctlGetTermios(int(sl.Fd()), unix.TCGETS)
	require.NoError(t, err)
	termios.Lflag &^= unix.ICANON | unix.ECHO
	termios.Oflag &^= unix.OPOST
	require.NoError(t, unix.IoctlSetTermios(int(sl.Fd()), unix.TCSETS, termios))

	for i := range 5 {
		line := "line " + strconv.Itoa(i) + "\n"
		_, err := sl.Write([]byte(line))
		require.NoError(t, err)
		c.waitFor(t, line)
	}
	made, _, parsing := ptyio.Buffers(p)
	require.Equal(t, 1, made, "short reads need one buffer")
	require.False(t, parsing, "short reads are fed by the reader")

	var flood bytes.Buffer
	for i := 0; flood.Len() < 2<<20; i++ {
		flood.WriteString(strconv.Itoa(i) + " ")
	}
	c.mu.Lock()
	want := c.out.String() + flood.String()
	c.mu.Unlock()
	// Pieces, each read before the next is written, larger than a short
	// read and smaller than the buffers: the parser hands back buffers it
	// was fed part of.
	for i, piece := 0, 3000; i < 100; i++ {
		b := flood.Next(piece)
		_, err = sl.Write(b)
		require.NoError(t, err)
		c.waitFor(t, string(b[len(b)-32:]))
	}
	_, err = sl.Write(flood.Bytes())
	require.NoError(t, err)
	c.waitFor(t, want[len(want)-64:])
	require.NoError(t, sl.Close())
	close(exited)
	require.NoError(t, m.SetReadDeadline(time.Unix(1, 0)))
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the pump did not end at EIO after the exit")
	}
	c.mu.Lock()
	got := c.out.String()
	c.mu.Unlock()
	require.Equal(t, want, got, "the flood arrived whole and in order")
	made, ever, parsing := ptyio.Buffers(p)
	require.True(t, parsing, "a flood is parsed on a goroutine of its own")
	require.Zero(t, made, "Run let its buffers go")
	// At most the four buffers at each size on the way up from 1 KiB to
	// 64 KiB (7 sizes): buffers go round, they are not made a read (a
	// parser that handed back the part it was fed had one made for each
	// of the 100 pieces).
	require.LessOrEqual(t, ever, 4*7, "buffers made in all")
}
