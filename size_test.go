package ptywright

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSizeValidate(t *testing.T) {
	tests := []struct {
		name    string
		size    Size
		field   string // "" means valid
		message string
	}{
		{"smallest", Size{Rows: 1, Cols: 1}, "", ""},
		{"largest area", Size{Rows: 1000, Cols: 1000, PixelWidth: 65535, PixelHeight: 65535}, "", ""},
		{"longest side", Size{Rows: 10000, Cols: 100}, "", ""},
		{"widest side", Size{Rows: 100, Cols: 10000}, "", ""},
		{"one cell over the budget", Size{Rows: 1000, Cols: 1001}, "size", "size: 1000 rows x 1001 cols is 1001000 cells, over the budget of 1000000 cells per screen"},
		{"both sides at their bound", Size{Rows: 10000, Cols: 10000}, "size", "size: 10000 rows x 10000 cols is 100000000 cells, over the budget of 1000000 cells per screen"},
		{"typical with pixels", Size{Rows: 24, Cols: 80, PixelWidth: 640, PixelHeight: 384}, "", ""},
		{"zero rows", Size{Rows: 0, Cols: 80}, "rows", "rows: must be between 1 and 10000, got 0"},
		{"negative rows", Size{Rows: -1, Cols: 80}, "rows", "rows: must be between 1 and 10000, got -1"},
		{"too many rows", Size{Rows: 10001, Cols: 80}, "rows", "rows: must be between 1 and 10000, got 10001"},
		{"zero cols", Size{Rows: 24}, "cols", "cols: must be between 1 and 10000, got 0"},
		{"too many cols", Size{Rows: 24, Cols: 10001}, "cols", "cols: must be between 1 and 10000, got 10001"},
		{"negative pixel width", Size{Rows: 24, Cols: 80, PixelWidth: -1}, "pixel_width", "pixel_width: must be between 0 and 65535, got -1"},
		{"negative pixel height", Size{Rows: 24, Cols: 80, PixelHeight: -5}, "pixel_height", "pixel_height: must be between 0 and 65535, got -5"},
		{"pixel width past 16 bits", Size{Rows: 24, Cols: 80, PixelWidth: 65536}, "pixel_width", "pixel_width: must be between 0 and 65535, got 65536"},
		{"pixel height past 16 bits", Size{Rows: 24, Cols: 80, PixelHeight: 70000}, "pixel_height", "pixel_height: must be between 0 and 65535, got 70000"},
		{"zero value", Size{}, "rows", "rows: must be between 1 and 10000, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.size.Validate()
			if tt.field == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidSize)
			var fe *FieldError
			require.True(t, errors.As(err, &fe))
			require.Equal(t, tt.field, fe.Field)
			require.EqualError(t, err, tt.message)
		})
	}
}

func TestSizeValidateCellsTakesTheBudgetGiven(t *testing.T) {
	big := Size{Rows: 2000, Cols: 1000}
	require.ErrorIs(t, big.Validate(), ErrInvalidSize)
	require.NoError(t, big.ValidateCells(2_000_000))
	require.ErrorIs(t, big.ValidateCells(1_999_999), ErrInvalidSize)
	require.ErrorIs(t, big.ValidateCells(0), ErrInvalidSize, "0 is the default budget")
	require.NoError(t, Size{Rows: 10000, Cols: 10000}.ValidateCells(sideBoundsOnly))
	require.ErrorIs(t, Size{Rows: 10001, Cols: 1}.ValidateCells(sideBoundsOnly), ErrInvalidSize, "a side is bounded whatever the budget")
}

// TestScreenHoldsItsCellBudget: a screen refuses a size over its budget at
// creation and on resize, and a refused resize leaves it as it was.
func TestScreenHoldsItsCellBudget(t *testing.T) {
	_, err := NewScreen(Size{Rows: 10000, Cols: 10000})
	require.ErrorIs(t, err, ErrInvalidSize)
	_, err = NewScreenWith(ScreenOptions{Size: Size{Rows: 24, Cols: 80}, MaxCells: -1})
	require.ErrorIs(t, err, ErrInvalidSize)

	s, err := NewScreenWith(ScreenOptions{Size: Size{Rows: 10, Cols: 10}, MaxCells: 200})
	require.NoError(t, err)
	defer s.Close()
	_, _ = s.Write([]byte("kept"))
	seq := s.Sequence()
	require.ErrorIs(t, s.Resize(Size{Rows: 10, Cols: 21}), ErrInvalidSize)
	require.Equal(t, Size{Rows: 10, Cols: 10}, s.Size())
	require.Equal(t, seq, s.Sequence(), "a refused resize changes nothing")
	require.NoError(t, s.Resize(Size{Rows: 10, Cols: 20}))
	require.Contains(t, s.PlainText(), "kept")
}
