package host

import (
	"fmt"
	"maps"
	"slices"

	"ptywright"
)

// permissions is the reference's permission gating table: what an
// adapter's manifest must declare for each operation on it, by JSON-RPC
// method name. adapter.list, adapter.live and adapter.cancel_wait need none.
var permissions = map[string][]ptywright.Permission{
	"adapter.start":      {ptywright.PermissionSessionSpawn},
	"adapter.resume":     {ptywright.PermissionSessionSpawn},
	"adapter.send":       {ptywright.PermissionInputWrite},
	"adapter.wait":       {ptywright.PermissionMatcherWait},
	"adapter.turn":       {ptywright.PermissionInputWrite, ptywright.PermissionMatcherWait},
	"adapter.snapshot":   {ptywright.PermissionScreenRead},
	"adapter.state":      {ptywright.PermissionScreenRead},
	"adapter.inspect":    {ptywright.PermissionScreenRead},
	"adapter.explain":    {ptywright.PermissionScreenRead},
	"adapter.extract":    {ptywright.PermissionScreenRead},
	"adapter.lifecycle":  {ptywright.PermissionScreenRead},
	"adapter.transcript": {ptywright.PermissionTranscriptRead},
	"adapter.close":      {ptywright.PermissionSessionKill},
}

// PermissionError is an operation the adapter's manifest does not grant.
// It wraps ptywright.ErrPermissionDenied.
type PermissionError struct {
	// Method is the operation, by its JSON-RPC method name.
	Method string
	// Permission is the first one it needs that the manifest lacks.
	Permission ptywright.Permission
}

// Error names the call and the permission it needs.
func (e *PermissionError) Error() string {
	return fmt.Sprintf("%v: %s requires the %s permission", ptywright.ErrPermissionDenied, e.Method, e.Permission)
}

// Unwrap exposes ErrPermissionDenied to errors.Is.
func (e *PermissionError) Unwrap() error { return ptywright.ErrPermissionDenied }

// CheckPermissions returns a *PermissionError for the first permission
// method needs that m does not declare. An adapter's permissions are its
// manifest's at start and cannot be widened after.
func CheckPermissions(method string, m *ptywright.PluginManifest) error {
	for _, p := range permissions[method] {
		if !m.HasPermission(p) {
			return &PermissionError{Method: method, Permission: p}
		}
	}
	return nil
}

// Permissions returns what method needs, nil for an ungated method.
func Permissions(method string) []ptywright.Permission {
	return slices.Clone(permissions[method])
}

// GatedMethods lists the methods the table gates, sorted.
func GatedMethods() []string {
	return slices.Sorted(maps.Keys(permissions))
}
