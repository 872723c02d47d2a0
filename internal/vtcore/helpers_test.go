package vtcore_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/vtcore"
)

// screenCase feeds input (one Write per element) to a rows x cols terminal
// and expects its rows (trailing spaces trimmed, trailing blank rows
// omitted) and cursor.
type screenCase struct {
	name       string
	rows, cols int
	input      []string
	want       []string
	row, col   int
	// departs: the case shows a deliberate departure from x/vt, which the
	// terminal must count (Divergences) so the differential tests stop
	// comparing there.
	departs bool
}

func runScreenCases(t *testing.T, cases []screenCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			term := feed(tc.rows, tc.cols, tc.input...)
			require.Equal(t, tc.want, lines(term), "rows")
			row, col := term.Cursor()
			require.Equal(t, [2]int{tc.row, tc.col}, [2]int{row, col}, "cursor (row, col)")
			if tc.departs {
				require.Positive(t, term.Divergences(), "a departure from x/vt goes uncounted")
			}
		})
	}
}

// feed returns a new terminal after one Write per input.
func feed(rows, cols int, input ...string) *vtcore.Terminal {
	term := vtcore.New(rows, cols, nil)
	for _, in := range input {
		term.WriteString(in)
	}
	return term
}

// lines returns the rows' text, trailing spaces and trailing blank rows
// trimmed.
func lines(term *vtcore.Terminal) []string {
	rows, _ := term.Size()
	out := make([]string, rows)
	for r := range rows {
		out[r] = strings.TrimRight(string(term.AppendRowText(nil, r)), " ")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// replies returns a terminal that records its replies, and the record.
func replies(rows, cols int) (*vtcore.Terminal, *[]string) {
	var got []string
	term := vtcore.New(rows, cols, func(b []byte) { got = append(got, string(b)) })
	return term, &got
}

// cellText returns the text of the cell at row, col.
func cellText(term *vtcore.Terminal, row, col int) string {
	return term.Text(term.Cell(row, col))
}
