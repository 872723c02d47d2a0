package tuitest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

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
