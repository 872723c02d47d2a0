package manifest

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireManifestRoundTrip checks that a parsed manifest is valid and that
// its wire form parses back to the same wire form.
func requireManifestRoundTrip(t *testing.T, m *Manifest) {
	t.Helper()
	require.NoError(t, m.Validate())
	wire, err := json.Marshal(m)
	require.NoError(t, err)
	back, err := ParseJSON(wire)
	require.NoError(t, err, "wire form: %s", wire)
	again, err := json.Marshal(back)
	require.NoError(t, err)
	require.Equal(t, string(wire), string(again))
}

func FuzzParseJSON(f *testing.F) {
	wire, err := json.Marshal(validManifest())
	require.NoError(f, err)
	f.Add(wire)
	f.Add([]byte(`{"name":"m","kind":"matcher","version":"1","runtime":"lua","entrypoint":"m.lua","permissions":[]}`))
	f.Add([]byte(`{"name":"m","default_target":{"env":{"A":{"x":[1]}}},"bogus":1}`))
	f.Add([]byte(`[{"name":"m"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseJSON(data)
		if err != nil {
			var me *Error
			require.ErrorAs(t, err, &me)
			require.Nil(t, m)
			return
		}
		requireManifestRoundTrip(t, m)
	})
}

func FuzzParseTOML(f *testing.F) {
	echo, err := os.ReadFile("../testdata/plugins/echo/manifest.toml")
	require.NoError(f, err)
	f.Add(echo)
	f.Add([]byte("name = \"e\"\nkind = \"macro\"\nversion = \"1\"\nruntime = \"lua\"\nentrypoint = \"e.lua\"\nevents = { emits = [\"e:x\"] }\n[default_target]\nprogram = \"sh\"\nenv.A = \"1\"\n"))
	f.Add([]byte("[[events]]\nName = 1\ndefault_target = { rowz = [1, {a = 2}] }\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseTOML(data)
		if err != nil {
			var me *Error
			require.ErrorAs(t, err, &me)
			require.Nil(t, m)
			return
		}
		requireManifestRoundTrip(t, m)
	})
}
