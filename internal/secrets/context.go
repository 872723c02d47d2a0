package secrets

import "bytes"

// ContextStart returns where, in s, the text begins that can decide the
// default patterns' spans that reach past end: the start of the line that
// holds end, since none of them crosses a line break; or 0 when a private
// key block, the one secret that spans lines, begins in s before that
// line. A redactor that judges s[end:] with what comes before it needs no
// more of s than that.
func ContextStart(s []byte, end int) int {
	nl := bytes.LastIndexByte(s[:end], '\n')
	if nl < 0 || bytes.Contains(s[:nl], []byte(pemBegin)) {
		return 0
	}
	return nl + 1
}
