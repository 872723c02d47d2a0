package ptywright

import (
	"errors"
	"fmt"
)

// MaxSizeCells bounds rows and cols. A PTY accepts larger values, but no real
// terminal has them and the screen allocates rows*cols cells, so a typo like
// 100000 would cost gigabytes instead of failing.
const MaxSizeCells = 10000

// ErrInvalidSize is wrapped by every error Size.Validate returns.
var ErrInvalidSize = errors.New("ptywright: invalid terminal size")

// Size is a terminal size in cells and optionally pixels.
//
// Pixel dimensions are passed to the PTY (TIOCSWINSZ) for programs that draw
// images; zero means unknown, which is what most terminals report.
type Size struct {
	Rows        int `json:"rows"`
	Cols        int `json:"cols"`
	PixelWidth  int `json:"pixel_width"`
	PixelHeight int `json:"pixel_height"`
}

// Validate reports the first field outside its range as a *FieldError
// wrapping ErrInvalidSize, so callers can both show the field name and match
// the class with errors.Is.
func (s Size) Validate() error {
	switch {
	case s.Rows < 1 || s.Rows > MaxSizeCells:
		return sizeFieldError("rows", s.Rows)
	case s.Cols < 1 || s.Cols > MaxSizeCells:
		return sizeFieldError("cols", s.Cols)
	case s.PixelWidth < 0:
		return &FieldError{Field: "pixel_width", Reason: fmt.Sprintf("must be >= 0, got %d", s.PixelWidth), Err: ErrInvalidSize}
	case s.PixelHeight < 0:
		return &FieldError{Field: "pixel_height", Reason: fmt.Sprintf("must be >= 0, got %d", s.PixelHeight), Err: ErrInvalidSize}
	}
	return nil
}

func sizeFieldError(field string, v int) *FieldError {
	return &FieldError{
		Field:  field,
		Reason: fmt.Sprintf("must be between 1 and %d, got %d", MaxSizeCells, v),
		Err:    ErrInvalidSize,
	}
}
