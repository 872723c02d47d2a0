package contract_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/contract"
)

// TestParserMetadataCarriesTheAnomalies: parser_metadata.anomalies is the
// assessment's anomalies, an empty list (not null) when there are none;
// one a plugin gives itself is kept; the top-level list stays.
func TestParserMetadataCarriesTheAnomalies(t *testing.T) {
	const base = `{"availability":"supported","business_state":"idle","input_mode":"freeform","ui_context":"normal_prompt",`
	a, err := contract.DecodeAssessment([]byte(base + `"parser_metadata":{"provider_id":"x"},` +
		`"anomalies":[{"code":"unknown_version_floor_used","message":"no banner"}]}`))
	require.NoError(t, err)
	want := []contract.Anomaly{{Code: contract.AnomalyUnknownVersionFloorUsed, Message: "no banner"}}
	require.Equal(t, want, a.Anomalies)
	require.Equal(t, want, a.ParserMetadata.Anomalies)

	a, err = contract.DecodeAssessment([]byte(base + `"parser_metadata":{"provider_id":"x"}}`))
	require.NoError(t, err)
	raw, err := json.Marshal(a.ParserMetadata)
	require.NoError(t, err)
	require.JSONEq(t, `{"provider_id":"x","anomalies":[]}`, string(raw))

	a, err = contract.DecodeAssessment([]byte(base + `"parser_metadata":{"provider_id":"x","anomalies":[{"code":"baseline_invalidated"}]},` +
		`"anomalies":[{"code":"unrecognized_screen","message":"row 3"}]}`))
	require.NoError(t, err)
	require.Equal(t, []contract.Anomaly{{Code: contract.AnomalyBaselineInvalidated}}, a.ParserMetadata.Anomalies, "the plugin's own list is kept")
	require.Equal(t, []contract.Anomaly{{Code: contract.AnomalyUnrecognizedScreen, Message: "row 3"}}, a.Anomalies)

	// An unknown field still decodes, and its anomaly is in both lists.
	a, err = contract.DecodeAssessment([]byte(base + `"parser_metadata":{"provider_id":"x"},"shiny":1}`))
	require.NoError(t, err)
	require.Len(t, a.ParserMetadata.Anomalies, 1)
	require.Equal(t, contract.AnomalyUnknownAssessmentFields, a.ParserMetadata.Anomalies[0].Code)
}
