package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDriveShell(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	require.NoError(t, driveShell(ctx, &out))
	require.Contains(t, out.String(), `matched "42 is the answer"`)
	// The screen at the match: the command and its answer. The next
	// prompt may or may not be there yet: the shell writes it after the
	// answer, and the wait returns the moment the answer shows.
	require.Contains(t, out.String(), "$ echo \"$((6 * 7)) is the answer\"\n42 is the answer\n")
}
