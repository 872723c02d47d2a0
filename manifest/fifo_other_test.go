//go:build !unix

package manifest

import "testing"

// manifestMkfifo: named pipes are a Unix thing; the checks that need one are
// Unix-only.
func manifestMkfifo(t *testing.T, path string) {
	t.Helper()
	t.Skip("named pipes need Unix")
}
