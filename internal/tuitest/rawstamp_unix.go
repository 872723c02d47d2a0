//go:build unix

package tuitest

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"

	gopty "github.com/aymanbagabas/go-pty"
)

// RawStamp is the floor under a wait-latency benchmark: a stamp child (this
// test binary in the mode env selects, answering each input line N with
// "M<N> T=<its clock>") on a bare PTY with echo off, its master read by
// the calling goroutine through the runtime poller, with no Session. A
// benchmark that times a round trip of its own between two of RawStamp's
// has the kernel's share of it measured in the same moments: on a shared
// machine the floor moves several-fold within minutes, so a floor measured
// in another run says little about this one.
type RawStamp struct {
	m   *os.File
	got []byte
	buf []byte
}

// StartRawStamp starts the child with env ("NAME=mode") added to this
// process's environment and waits for it to be ready; the child is killed
// and the PTY closed when tb ends.
func StartRawStamp(tb testing.TB, env string) *RawStamp {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	pt, err := gopty.New()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := pt.Command("/bin/sh", StampShellArgs(exe)...)
	cmd.Env = append(os.Environ(), env)
	if err := cmd.Start(); err != nil {
		_ = pt.Close() // Best effort: the benchmark fails anyway.
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Kill() // Best effort: the child has served.
		_ = cmd.Wait()
		_ = pt.Close()
	})
	r := &RawStamp{m: pt.(gopty.UnixPty).Master(), buf: make([]byte, 64<<10)}
	if err := r.m.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		tb.Fatal(err)
	}
	r.readUntil(tb, "started\r\n")
	return r
}

// RoundTrip sends line n and returns the time from the child writing its
// stamp to this goroutine having read the whole line. A child that has not
// answered in 10 s fails tb.
func (r *RawStamp) RoundTrip(tb testing.TB, n int) time.Duration {
	tb.Helper()
	if err := r.m.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		tb.Fatal(err)
	}
	r.got = r.got[:0]
	if _, err := r.m.Write(fmt.Appendf(nil, "%d\n", n)); err != nil {
		tb.Fatal(err)
	}
	key := fmt.Sprintf("M%d T=", n)
	r.readUntil(tb, key)
	for !bytes.Contains(r.got[bytes.Index(r.got, []byte(key)):], []byte("\r\n")) {
		r.read(tb)
	}
	read := time.Now()
	at, ok := StampOf(string(r.got), n)
	if !ok {
		tb.Fatalf("no stamp %d in %q", n, r.got)
	}
	return read.Sub(at)
}

func (r *RawStamp) readUntil(tb testing.TB, s string) {
	for !bytes.Contains(r.got, []byte(s)) {
		r.read(tb)
	}
}

func (r *RawStamp) read(tb testing.TB) {
	n, err := r.m.Read(r.buf)
	if err != nil {
		tb.Fatal(err)
	}
	r.got = append(r.got, r.buf[:n]...)
}
