package ptywrighttest

import (
	"fmt"
	"strings"
)

// op is one line of an edit script.
type op struct {
	kind byte // ' ' kept, '-' only in a, '+' only in b
	text string
}

// diffLines returns a shortest edit script from a to b (Myers' O(ND)
// algorithm). Screens are a few dozen lines, so keeping every round's
// frontier for the backtrack costs nothing worth optimising.
func diffLines(a, b []string) []op {
	n, m := len(a), len(b)
	most := n + m
	off := most + 1
	v := make([]int, 2*most+3)
	var trace [][]int
	for d := 0; d <= most; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: insert from b
			} else {
				x = v[off+k-1] + 1 // right: delete from a
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, a, b, d, off)
			}
		}
	}
	return nil // Unreachable: d = n+m always reaches the end.
}

// backtrack walks the frontiers back from the end: trace[d] is the
// frontier before round d.
func backtrack(trace [][]int, a, b []string, d, off int) []op {
	var rev []op
	x, y := len(a), len(b)
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		pk := k - 1 // came right: deleted a[x-1]
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			pk = k + 1 // came down: inserted b[y-1]
		}
		px := v[off+pk]
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, op{' ', a[x]})
		}
		if pk == k+1 {
			y--
			rev = append(rev, op{'+', b[y]})
		} else {
			x--
			rev = append(rev, op{'-', a[x]})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, op{' ', a[x]})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// unifiedDiff renders the difference between a and b as a unified diff
// with ctx lines of context, control characters escaped. It returns ""
// when they are equal.
func unifiedDiff(nameA, nameB string, a, b []string, ctx int) string {
	ops := diffLines(a, b)
	changed := false
	for _, o := range ops {
		if o.kind != ' ' {
			changed = true
			break
		}
	}
	if !changed {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", nameA, nameB)
	// Line numbers before each op.
	ai := make([]int, len(ops)+1)
	bi := make([]int, len(ops)+1)
	for i, o := range ops {
		ai[i+1], bi[i+1] = ai[i], bi[i]
		if o.kind != '+' {
			ai[i+1]++
		}
		if o.kind != '-' {
			bi[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from ctx kept lines before this change to ctx kept lines
		// after the last change that is within 2*ctx of the next.
		start := max(i-ctx, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
				continue
			}
			if j-end >= 2*ctx {
				break
			}
		}
		end = min(end+ctx, len(ops))
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(ai[start], ai[end]), hunkRange(bi[start], bi[end]))
		for _, o := range ops[start:end] {
			sb.WriteByte(o.kind)
			sb.WriteString(escapeControls(o.text))
			sb.WriteByte('\n')
		}
		i = end
	}
	return sb.String()
}

// hunkRange formats lines [from, to) (0-based) as unified diff's
// "start,count", where an empty range names the line before it.
func hunkRange(from, to int) string {
	if to == from {
		return fmt.Sprintf("%d,0", from)
	}
	return fmt.Sprintf("%d,%d", from+1, to-from)
}
