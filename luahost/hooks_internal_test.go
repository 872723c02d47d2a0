package luahost

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

func TestHookTimeoutDefaultAndCap(t *testing.T) {
	tests := []struct {
		in, want time.Duration
	}{
		{0, DefaultHookTimeout},
		{time.Millisecond, time.Millisecond},
		{30 * time.Second, 30 * time.Second},
		{MaxHookTimeout, MaxHookTimeout},
		{MaxHookTimeout + 1, MaxHookTimeout},
		{time.Hour, MaxHookTimeout},
	}
	for _, tt := range tests {
		got, err := HookOptions{Timeout: tt.in}.timeout()
		require.NoError(t, err)
		require.Equal(t, tt.want, got, tt.in)
	}
	_, err := HookOptions{Timeout: -1}.timeout()
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
}
