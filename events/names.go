package events

import (
	"slices"
	"strings"
)

// hostNamespaces are owned by the host: plugins may handle their events
// but never emit them, and no plugin may take their names.
var hostNamespaces = []string{"session", "adapter"}

// IsHostNamespace reports whether ns belongs to the host (session,
// adapter): plugins may handle its events but never emit them.
func IsHostNamespace(ns string) bool { return slices.Contains(hostNamespaces, ns) }

// HostNamespaces returns the namespaces the host owns.
func HostNamespaces() []string { return slices.Clone(hostNamespaces) }

// SplitName splits an event name, "<namespace>:<event>", requiring both
// halves to be identifiers (IsIdent).
func SplitName(name string) (ns, event string, ok bool) {
	ns, event, found := strings.Cut(name, ":")
	if !found || !IsIdent(ns) || !IsIdent(event) {
		return "", "", false
	}
	return ns, event, true
}

// IsIdent reports whether s can be a half of an event name, and so a
// plugin's name (its namespace): non-empty, starting with a lowercase
// letter or digit, with only lowercase letters, digits, '-' and '_'.
func IsIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}
