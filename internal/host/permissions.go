package host

import (
	"fmt"
	"maps"
	"slices"

	"ptywright"
	"ptywright/manifest"
)

// permissions is the reference's permission gating table: what an
// adapter's manifest must declare for each operation on it, by JSON-RPC
// method name. adapter.list, adapter.live and adapter.cancel_wait need none.
var permissions = map[string][]manifest.Permission{
	"adapter.start":      {manifest.PermissionSessionSpawn},
	"adapter.resume":     {manifest.PermissionSessionSpawn},
	"adapter.send":       {manifest.PermissionInputWrite},
	"adapter.wait":       {manifest.PermissionMatcherWait},
	"adapter.turn":       {manifest.PermissionInputWrite, manifest.PermissionMatcherWait},
	"adapter.snapshot":   {manifest.PermissionScreenRead},
	"adapter.state":      {manifest.PermissionScreenRead},
	"adapter.inspect":    {manifest.PermissionScreenRead},
	"adapter.explain":    {manifest.PermissionScreenRead},
	"adapter.extract":    {manifest.PermissionScreenRead},
	"adapter.lifecycle":  {manifest.PermissionScreenRead},
	"adapter.policy":     {manifest.PermissionScreenRead},
	"adapter.transcript": {manifest.PermissionTranscriptRead},
	"adapter.close":      {manifest.PermissionSessionKill},
}

// PermissionError is an operation the adapter's manifest does not grant.
// It wraps ptywright.ErrPermissionDenied.
type PermissionError struct {
	// Method is the operation, by its JSON-RPC method name.
	Method string
	// Permission is the first one it needs that the manifest lacks.
	Permission manifest.Permission
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
func CheckPermissions(method string, m *manifest.Manifest) error {
	for _, p := range permissions[method] {
		if !m.HasPermission(p) {
			return &PermissionError{Method: method, Permission: p}
		}
	}
	return nil
}

// Permissions returns what method needs, nil for an ungated method.
func Permissions(method string) []manifest.Permission {
	return slices.Clone(permissions[method])
}

// GatedMethods lists the methods the table gates, sorted.
func GatedMethods() []string {
	return slices.Sorted(maps.Keys(permissions))
}
