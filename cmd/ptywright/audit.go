package main

import (
	"fmt"
	"log/slog"

	"ptywright"
	"ptywright/policyfile"
)

const auditUsage = "append a JSON line for every dialog an adapter answers (or refuses at the key) to `FILE`, created with mode 0600"

const policyUsage = "answer permission dialogs by the ordered rules of the TOML policy at `FILE` (allow, deny or ask)"

// loadPolicy reads the --policy file of command, or nothing when path is
// empty.
func loadPolicy(command, path string) (*ptywright.Policy, error) {
	if path == "" {
		return nil, nil
	}
	p, err := policyfile.Load(path)
	if err != nil {
		return nil, fmt.Errorf("%s: --policy: %w", command, err)
	}
	return p, nil
}

// openAudit opens the --audit file of command, or nothing when path is
// empty.
func openAudit(command, path string) (*ptywright.AuditLog, error) {
	if path == "" {
		return nil, nil
	}
	l, err := ptywright.OpenAuditLog(path)
	if err != nil {
		return nil, fmt.Errorf("%s: --audit: %w", command, err)
	}
	return l, nil
}

// closeAudit closes l, logging a write that failed on the way.
func closeAudit(l *ptywright.AuditLog, log *slog.Logger) {
	if l == nil {
		return
	}
	if err := l.Close(); err != nil {
		log.Error("audit log", "err", err.Error())
	}
}
