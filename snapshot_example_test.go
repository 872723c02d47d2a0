package ptywright_test

import (
	"context"
	"fmt"
	"time"

	"ptywright"
)

// Read some rows of a screen, their cells as runs of one style: a few
// runs a row instead of a cell a column.
func ExampleSession_Snapshot() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	s, err := ptywright.Start(ptywright.Options{
		Program: "/bin/sh",
		Args:    []string{"-c", `printf 'title\r\nok \033[1;32mpassed\033[0m 日本\r\nlast'; sleep 5`},
		Size:    ptywright.Size{Rows: 4, Cols: 20},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	if _, err := s.Wait(ctx, ptywright.ContainsText("last")); err != nil {
		fmt.Println(err)
		return
	}

	snap := s.Snapshot(ptywright.SnapshotOptions{Runs: true, Rows: &ptywright.RowRange{From: 1, To: 2}})
	fmt.Printf("rows %d-%d: %q, %d cells\n", snap.Rows.From, snap.Rows.To, snap.PlainText, len(snap.Cells))
	for _, r := range snap.Runs {
		fmt.Printf("row %d col %d %q bold=%v fg=%s wide=%v\n", r.Row, r.Col, r.Text, r.Style.Bold, r.Style.Foreground, r.Wide)
	}
	fmt.Println("cells:", len(ptywright.CellsOfRuns(snap.Runs)))
	// Output:
	// rows 1-2: "ok passed 日本", 0 cells
	// row 1 col 0 "ok " bold=false fg=default wide=false
	// row 1 col 3 "passed" bold=true fg=idx:2 wide=false
	// row 1 col 9 " " bold=false fg=default wide=false
	// row 1 col 10 "日本" bold=false fg=default wide=true
	// row 1 col 14 "      " bold=false fg=default wide=false
	// cells: 20
}
