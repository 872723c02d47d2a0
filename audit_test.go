package ptywright_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/ptywrighttest"
)

// TestAuditLogAppends: an audit log is created 0600, appended to across
// opens (an existing file is never truncated, and is made 0600), and reads
// back record by record.
func TestAuditLogAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	l, err := ptywright.OpenAuditLog(path)
	require.NoError(t, err)
	require.NoError(t, l.Write(ptywright.AuditRecord{Plugin: "codex", Intent: "approve", DialogID: "perm-1", Command: "touch a",
		Option: 1, OptionLabel: "Yes, proceed", DecidedBy: "connection 1", Effect: ptywright.EffectConfirmed}))
	require.NoError(t, l.Close())
	l, err = ptywright.OpenAuditLog(path)
	require.NoError(t, err)
	require.NoError(t, l.Write(ptywright.AuditRecord{Plugin: "claude-code", Intent: "deny", DecidedBy: "rule deny-rm", Effect: ptywright.EffectNotSent}))
	require.NoError(t, l.Close())
	require.Error(t, l.Write(ptywright.AuditRecord{}), "closed")

	recs := ptywrighttest.ReadAudit(t, path)
	require.Len(t, recs, 2)
	require.Equal(t, "touch a", recs[0].Command)
	require.Equal(t, "connection 1", recs[0].DecidedBy)
	require.False(t, recs[0].Time.IsZero())
	require.Equal(t, "rule deny-rm", recs[1].DecidedBy)
	require.Equal(t, ptywright.EffectNotSent, recs[1].Effect)
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	}
	_, err = ptywright.OpenAuditLog("")
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
}
