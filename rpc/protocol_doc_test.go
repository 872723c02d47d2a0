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

// TestProtocolDocParamsTables: under each method's heading in
// docs/protocol.md, the params table names exactly the params rpc.discover
// describes for it (a row may name several, "`rows`, `cols`", or say
// "`plugin` and the rest ... As for `adapter.start`"), and a method
// without params has no table.
func TestProtocolDocParamsTables(t *testing.T) {
	b, err := os.ReadFile(protocolDoc)
	require.NoError(t, err)
	_, section, _ := strings.Cut(string(b), "\n## Methods\n")
	section, _, _ = strings.Cut(section, "\n## ")
	bodies := map[string]string{}
	for _, part := range regexp.MustCompile(`(?m)^### `).Split(section, -1)[1:] {
		name, body, _ := strings.Cut(part, "\n")
		bodies[name] = body
	}
	srv := NewServer(Options{Plugins: &plugins.Registry{}})
	defer srv.Close()
	described := map[string][]string{}
	for _, m := range srv.openRPC().Methods {
		for _, p := range m.Params {
			described[m.Name] = append(described[m.Name], p.Name)
		}
	}
	row := regexp.MustCompile(`(?m)^\| ([^|]*) \|.*$`)
	name, asFor := regexp.MustCompile("`([a-z_]+)`"), regexp.MustCompile("As for `([a-z_.]+)`")
	for method, params := range described {
		var documented []string
		if _, table, ok := strings.Cut(bodies[method], "| Param |"); ok {
			table, _, _ = strings.Cut(table, "\n\n")
			for _, r := range row.FindAllStringSubmatch(table, -1) {
				if strings.Contains(r[1], " and the rest") {
					other := asFor.FindStringSubmatch(r[0])
					require.NotNil(t, other, "%s: %q says as for which method", method, r[0])
					documented = append(documented, described[other[1]]...)
					continue
				}
				for _, n := range name.FindAllStringSubmatch(r[1], -1) {
					documented = append(documented, n[1])
				}
			}
		}
		require.ElementsMatch(t, params, documented, "%s: the params table of docs/protocol.md", method)
	}
}
