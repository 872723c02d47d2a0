package secrets

import (
	"slices"
	"strconv"
	"strings"
)

// Redacting values. What plugins return, emit and log is a JSON-like tree
// (strings, lists, maps): every string in it can quote the screen, the
// member names of its maps included (a plugin keying a table by screen
// row), and a list of strings can be the screen's rows, a secret the
// terminal wrapped split across two of them.

// Replace returns s with the spans (sorted, disjoint) replaced by repl; s
// itself when there are none.
func Replace(s string, spans [][2]int, repl string) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(spans)*len(repl))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(repl)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// RedactRows redacts rows of a screen cols wide (cols <= 0: unknown, no
// row is read as wrapped), a secret a wrap split across rows included
// (RowSpans). nil when there is nothing to hide.
func RedactRows(rows []string, cols int, spans func(string) [][2]int, repl string) []string {
	var out []string
	for i, sp := range RowSpans(rows, cols, nil, spans) {
		if len(sp) == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(rows)
		}
		out[i] = Replace(rows[i], sp, repl)
	}
	return out
}

// RedactText redacts text that may be rows of a screen cols wide joined by
// "\n" (RedactRows); text itself when there is nothing to hide.
func RedactText(text string, cols int, spans func(string) [][2]int, repl string) string {
	text, _ = RedactScreen(text, cols, spans, repl)
	return text
}

// RedactScreen is RedactText and ScreenPieces of the same screen text from
// one reading of its rows, for a wait's evidence, which needs both: the
// screen redacted, and the pieces of its secrets that a quote of it (a
// capture) may hold laid out anew.
func RedactScreen(text string, cols int, spans func(string) [][2]int, repl string) (redacted string, pieces []string) {
	if text == "" {
		return text, nil
	}
	if !RowsJoin(text, cols) {
		return Replace(text, spans(text), repl), nil // no row goes on in the next: no split
	}
	rows := strings.Split(text, "\n")
	var out []string
	for i, sp := range RowSpans(rows, cols, nil, spans) {
		if len(sp) == 0 {
			continue
		}
		for _, p := range sp {
			if p[1]-p[0] >= minPiece {
				pieces = append(pieces, rows[i][p[0]:p[1]])
			}
		}
		if out == nil {
			out = slices.Clone(rows)
		}
		out[i] = Replace(rows[i], sp, repl)
	}
	if out == nil {
		return text, pieces
	}
	return strings.Join(out, "\n"), pieces
}

// Tree redacts JSON-like values. Text redacts one string; Rows, when not
// nil, a list of strings read as screen rows (nil: nothing to hide); Key a
// map's member name.
type Tree struct {
	Text func(string) string
	Rows func([]string) []string
	Key  func(string) string
}

// Value returns a copy of v (string, []string, []any, map[string]any,
// map[string]string, nested; anything else as is) with its strings and
// member names redacted. Two names that redact alike stay two members: the
// later ones in sorted order of the originals get " (2)", " (3)"..., so no
// value is lost and the result does not depend on map order.
func (t Tree) Value(v any) any {
	switch x := v.(type) {
	case string:
		return t.Text(x)
	case []string:
		return t.strings(x)
	case map[string]string:
		return redactMap(x, t.Key, t.Text)
	case map[string]any:
		return redactMap(x, t.Key, t.Value)
	case []any:
		out := make([]any, len(x))
		strs := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				strs = append(strs, s)
			}
		}
		if len(strs) == len(x) && len(x) > 0 {
			// A Lua plugin's table of lines.
			for i, s := range t.strings(strs) {
				out[i] = s
			}
			return out
		}
		for i, e := range x {
			out[i] = t.Value(e)
		}
		return out
	}
	return v
}

// strings redacts a list of strings: as rows, unless one holds a line
// break (then it is text of its own).
func (t Tree) strings(x []string) []string {
	if t.Rows != nil && !slices.ContainsFunc(x, func(s string) bool { return strings.Contains(s, "\n") }) {
		if rows := t.Rows(x); rows != nil {
			return rows
		}
		return slices.Clone(x)
	}
	out := make([]string, len(x))
	for i, e := range x {
		out[i] = t.Text(e)
	}
	return out
}

// redactMap copies m with its names redacted by key and its values by val.
func redactMap[V any](m map[string]V, key func(string) string, val func(V) V) map[string]V {
	out := make(map[string]V, len(m))
	var renamed [][2]string // original, redacted
	for k, e := range m {
		if name := key(k); name != k {
			renamed = append(renamed, [2]string{k, name})
			continue
		}
		out[k] = val(e)
	}
	slices.SortFunc(renamed, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	for _, kn := range renamed {
		name := kn[1]
		for n := 2; ; n++ {
			if _, taken := out[name]; !taken {
				break
			}
			name = kn[1] + " (" + strconv.Itoa(n) + ")"
		}
		out[name] = val(m[kn[0]])
	}
	return out
}
