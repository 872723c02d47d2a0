package rpc

import (
	"ptywright"
)

// cellFormat is a snapshot's cell_format: how its cells are written.
type cellFormat string

const (
	// cellsPerCell: cells, one object per cell (the default).
	cellsPerCell cellFormat = "cells"
	// cellsAsRuns: runs, one object per run of cells of one style
	// (ptywright.CellRun), and cells empty.
	cellsAsRuns cellFormat = "runs"
)

// cellFormats are the values of cell_format, as rpc.discover lists them.
var cellFormats = []cellFormat{cellsPerCell, cellsAsRuns}

// rowsParams is a snapshot's rows: rows from up to, not including, to,
// counted from 0 at the top; to omitted means through the last row.
type rowsParams struct {
	From int  `json:"from"`
	To   *int `json:"to"`
}

// snapshotShape are the params that say what of the screen
// session.snapshot and adapter.snapshot carry: cells (default true; false
// leaves them out: cells [], no runs), their cell_format, and the rows.
type snapshotShape struct {
	Cells      *bool
	CellFormat cellFormat
	Rows       *rowsParams
}

// options are the snapshot options the shape asks for, or an invalid
// params error naming the member that is wrong.
func (p snapshotShape) options() (ptywright.SnapshotOptions, error) {
	var opts ptywright.SnapshotOptions
	cells := p.Cells == nil || *p.Cells
	switch p.CellFormat {
	case "", cellsPerCell:
		opts.Cells = cells
	case cellsAsRuns:
		opts.Runs = cells
	default:
		return opts, invalidParams("cell_format", "must be %q or %q, got %q", cellsPerCell, cellsAsRuns, string(p.CellFormat))
	}
	if !cells && p.CellFormat != "" {
		return opts, invalidParams("cell_format", "must be left out when cells is false (there are no cells to format)")
	}
	if p.Rows != nil {
		rr := ptywright.RowRange{From: p.Rows.From}
		if p.Rows.To != nil {
			// An explicit 0 is an empty range, not RowRange's "through the
			// last row".
			if rr.From >= 0 && *p.Rows.To <= rr.From {
				return opts, invalidParams("rows.to", "must be greater than from (%d), got %d", rr.From, *p.Rows.To)
			}
			rr.To = *p.Rows.To
		}
		if err := rr.Validate(); err != nil {
			return opts, err
		}
		opts.Rows = &rr
	}
	return opts, nil
}
