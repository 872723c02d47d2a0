package tuitest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// StampShellArgs are /bin/sh's arguments that run exe, a test binary in
// its stamp child mode (its environment says which), on a terminal with
// echo off once it has said "started": the line it answers is all that
// comes back.
func StampShellArgs(exe string) []string {
	return []string{"-c", `stty -echo; echo started; exec "$0"`, exe}
}

// StampOf finds in text the line a stamp child wrote for input line n,
// "M<n> T=<unix nanoseconds>", and returns the time it carries: the
// child's clock as it wrote the line. The last such line counts.
func StampOf(text string, n int) (time.Time, bool) {
	key := fmt.Sprintf("M%d T=", n)
	i := strings.LastIndex(text, key)
	if i < 0 {
		return time.Time{}, false
	}
	rest := text[i+len(key):]
	end := strings.IndexAny(rest, "\r\n")
	if end < 0 {
		return time.Time{}, false
	}
	ns, err := strconv.ParseInt(rest[:end], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(0, ns), true
}
