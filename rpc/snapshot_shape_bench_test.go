//go:build unix

package rpc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkSnapshot1000 measures session.snapshot of a 1000x1000 screen
// (bigScreenScript: three rows of styled text, the rest blank) over the
// Unix socket, from the request's write to the response read whole by a
// client, in each shape: every cell (the default), no cells, runs, and
// ten rows of cells. json-bytes is the size of the response.
func BenchmarkSnapshot1000(b *testing.B) {
	srv := newServer(b, Options{})
	path := serveUnix(b, srv)
	c := dialRaw(b, path)
	c.mustRoundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"session.create","params":{"program":"/bin/sh","args":["-c",`+jsonString(bigScreenScript)+`],"rows":1000,"cols":1000}}`+"\n"))
	c.mustRoundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"session.wait","params":{"session":"s1","matcher":{"type":"contains_text","value":"end"}}}`+"\n"))
	for _, tc := range []struct{ name, params string }{
		{"cells", `{"session":"s1"}`},
		{"none", `{"session":"s1","cells":false}`},
		{"runs", `{"session":"s1","cell_format":"runs"}`},
		{"rows10", `{"session":"s1","rows":{"from":495,"to":505}}`},
		{"rows10-runs", `{"session":"s1","rows":{"from":495,"to":505},"cell_format":"runs"}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := []byte(`{"jsonrpc":"2.0","id":1,"method":"session.snapshot","params":` + tc.params + `}` + "\n")
			var n int
			for b.Loop() {
				resp, err := c.roundTrip(req)
				require.NoError(b, err)
				n = len(resp)
			}
			b.ReportMetric(float64(n), "json-bytes")
		})
	}
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	return string(appendJSONString(nil, s))
}
