package tuitest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ptywright"
	"ptywright/policyfile"
	"ptywright/ptywrighttest"
)

// heldoutPolicy is the policy the built-in plugins' end-to-end tests run
// against their real CLIs: touch heldout_* allowed (a shell tool of the
// plugin's), rm * denied.
const heldoutPolicy = `
[[rule]]
id = "allow-heldout"
plugin = %q
tool = "shell"
command = "touch heldout_*"
decision = "allow"

[[rule]]
id = "deny-rm"
command = "rm *"
decision = "deny"
`

// HeldoutPolicy returns that policy for plugin and an audit log in a
// temporary directory (closed at the test's end), with the log's path.
func HeldoutPolicy(t testing.TB, plugin string) (*ptywright.Policy, *ptywright.AuditLog, string) {
	t.Helper()
	policy, err := policyfile.Parse(fmt.Appendf(nil, heldoutPolicy, plugin))
	if err != nil {
		t.Fatalf("heldout policy: %v", err)
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	audit, err := ptywright.OpenAuditLog(path)
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	t.Cleanup(func() {
		if err := audit.Close(); err != nil {
			t.Errorf("audit log: %v", err)
		}
	})
	return policy, audit, path
}

// AuditByRule waits (up to d) for n lines of the audit log at path that a
// policy rule decided, and returns them as `intent "command" decided_by
// "option label" effect`. A policy writes its line once its receipt is
// in, which may be after the screen a test saw.
func AuditByRule(t testing.TB, path string, n int, d time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var got []string
		for _, r := range ptywrighttest.ReadAudit(t, path) {
			if strings.HasPrefix(r.DecidedBy, "rule ") {
				got = append(got, fmt.Sprintf("%s %q %s %q %s", r.Intent, r.Command, r.DecidedBy, r.OptionLabel, r.Effect))
			}
		}
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}
