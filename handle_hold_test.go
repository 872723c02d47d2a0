package ptywright_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// While input is held (a person has the terminal), an intent is refused
// before any key, with a not_sent receipt that says why; reads go on, and
// once released the same intent is delivered.
func TestHoldInputRefusesIntentsUntilReleased(t *testing.T) {
	h := startAwaitMenu(t, 50, ptywright.HandleOptions{})
	waitFor(t, h.Session(), ptywright.ContainsText("Pick a fruit"))
	h.HoldInput(errors.New("a person has the terminal"))
	res, err := h.Send(context.Background(), "choose", nil)
	require.ErrorIs(t, err, ptywright.ErrIntentRefused)
	require.ErrorContains(t, err, "a person has the terminal")
	require.Equal(t, ptywright.EffectNotSent, res.Receipt.Effect)
	require.Zero(t, res.Receipt.Bytes)
	st, err := h.State(context.Background())
	require.NoError(t, err)
	require.Equal(t, "menu", st.State, "nothing was typed")

	h.HoldInput(nil)
	res, err = h.Send(context.Background(), "choose", nil)
	require.NoError(t, err)
	require.Equal(t, ptywright.EffectConfirmed, res.Receipt.Effect)
}
