package rpc

import (
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/plugins"
)

// protocolDoc is the protocol reference, which must not drift from the
// method table.
const protocolDoc = "../docs/protocol.md"

// docHeadings returns the "### name" headings of the "## title" section
// of doc that name a method or notification (they contain a dot).
func docHeadings(doc, title string) []string {
	_, section, _ := strings.Cut(doc, "\n## "+title+"\n")
	section, _, _ = strings.Cut(section, "\n## ")
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^### ([a-z_]+\.[a-z_]+)$`).FindAllStringSubmatch(section, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

// TestProtocolDocCoversMethodTable: docs/protocol.md has a heading for
// every method of a server with plugins under Methods and for every
// notification under Notifications, and none for anything else, and names
// every error code the server answers.
func TestProtocolDocCoversMethodTable(t *testing.T) {
	b, err := os.ReadFile(protocolDoc)
	require.NoError(t, err)
	doc := string(b)
	srv := NewServer(Options{Plugins: &plugins.Registry{}})
	defer srv.Close()
	require.Equal(t, srv.Methods(), docHeadings(doc, "Methods"), "### headings under ## Methods")
	require.Equal(t, srv.notifications(), docHeadings(doc, "Notifications"), "### headings under ## Notifications")
	for name, code := range errorCodes() {
		require.Contains(t, doc, "| "+strconv.Itoa(int(code))+" |", "the error table lists %s", name)
		require.Contains(t, doc, "`"+name+"`", "the error table names %s", name)
	}
}
