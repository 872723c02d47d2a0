package ptywrighttest

import (
	"os"
	"runtime"
	"testing"

	"ptywright"
)

// ReadAudit reads back the audit log at path (HandleOptions.Audit, the
// CLI's --audit): its records in order, after checking that it is private
// to its owner (mode 0600, where the platform has modes). It fails tb when
// the file cannot be read or a line is not a record.
func ReadAudit(tb testing.TB, path string) []ptywright.AuditRecord {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("audit log: %v", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		tb.Fatalf("audit log: %v", err)
	} else if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		tb.Fatalf("audit log %s: mode %v, want 0600", path, fi.Mode().Perm())
	}
	recs, err := ptywright.ReadAuditLog(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return recs
}
