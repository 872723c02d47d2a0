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
		{"largest", Size{Rows: 10000, Cols: 10000, PixelWidth: 65535, PixelHeight: 65535}, "", ""},
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
