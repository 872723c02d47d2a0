package ptywright

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// The shared, provider-agnostic vocabulary of a surface assessment
// (shared-tui-parsing-contracts). Plugins report these; the host validates
// them and derives the turn lifecycle from them.
const (
	AvailabilitySupported    = "supported"
	AvailabilityUnsupported  = "unsupported"
	AvailabilityDisconnected = "disconnected"
	AvailabilityUnknown      = "unknown"

	BusinessIdle             = "idle"
	BusinessWorking          = "working"
	BusinessAwaitingOperator = "awaiting_operator"
	BusinessUnknown          = "unknown"

	InputFreeform = "freeform"
	InputModal    = "modal"
	InputClosed   = "closed"
	InputUnknown  = "unknown"

	UIContextNormalPrompt  = "normal_prompt"
	UIContextSelectionMenu = "selection_menu"
	UIContextSlashCommand  = "slash_command"
	UIContextUnknown       = "unknown"
)

// Anomaly codes the shared layer defines.
const (
	AnomalyUnknownVersionFloorUsed = "unknown_version_floor_used"
	AnomalyBaselineInvalidated     = "baseline_invalidated"
	AnomalyPresetOverrideUsed      = "preset_override_used"
	AnomalyStalledEntered          = "stalled_entered"
	AnomalyStalledRecovered        = "stalled_recovered"
)

// SurfaceAssessment is one snapshot's provider-agnostic state.
type SurfaceAssessment struct {
	Availability  string `json:"availability"`
	BusinessState string `json:"business_state"`
	InputMode     string `json:"input_mode"`
	// UIContext is a shared value or a provider-specific one (snake_case).
	UIContext string `json:"ui_context"`
	// OperatorBlockedExcerpt is the menu/approval text when the tool waits
	// for the operator.
	OperatorBlockedExcerpt string          `json:"operator_blocked_excerpt,omitempty"`
	ParserMetadata         *ParserMetadata `json:"parser_metadata,omitempty"`
	Anomalies              []Anomaly       `json:"anomalies,omitempty"`
}

// ParserMetadata is the provenance of a parse.
type ParserMetadata struct {
	ProviderID          string `json:"provider_id"`
	ParserPresetID      string `json:"parser_preset_id,omitempty"`
	ParserPresetVersion string `json:"parser_preset_version,omitempty"`
	OutputFormat        string `json:"output_format,omitempty"`
	OutputVariant       string `json:"output_variant,omitempty"`
	OutputFormatMatch   *bool  `json:"output_format_match,omitempty"`
	// DetectedVersion is the tool version read from the screen's banner.
	DetectedVersion     string `json:"detected_version,omitempty"`
	RequestedVersion    string `json:"requested_version,omitempty"`
	SelectionSource     string `json:"selection_source,omitempty"`
	BaselineInvalidated bool   `json:"baseline_invalidated,omitempty"`
}

// Anomaly is a structured irregularity attached to an assessment.
type Anomaly struct {
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

// SubmitReady reports whether a prompt can be submitted now: the surface is
// supported, idle and takes free-form input.
func (a *SurfaceAssessment) SubmitReady() bool {
	return a != nil && a.Availability == AvailabilitySupported &&
		a.BusinessState == BusinessIdle && a.InputMode == InputFreeform
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Validate checks the vocabularies.
func (a *SurfaceAssessment) Validate() error {
	check := func(field, v string, allowed ...string) error {
		for _, ok := range allowed {
			if v == ok {
				return nil
			}
		}
		return fmt.Errorf("%w: assessment.%s: %q is not one of %q", ErrInvalidParams, field, v, allowed)
	}
	if err := check("availability", a.Availability, AvailabilitySupported, AvailabilityUnsupported, AvailabilityDisconnected, AvailabilityUnknown); err != nil {
		return err
	}
	if err := check("business_state", a.BusinessState, BusinessIdle, BusinessWorking, BusinessAwaitingOperator, BusinessUnknown); err != nil {
		return err
	}
	if err := check("input_mode", a.InputMode, InputFreeform, InputModal, InputClosed, InputUnknown); err != nil {
		return err
	}
	if !snakeCase.MatchString(a.UIContext) {
		return fmt.Errorf("%w: assessment.ui_context: %q must be a snake_case context name", ErrInvalidParams, a.UIContext)
	}
	for i, an := range a.Anomalies {
		if !snakeCase.MatchString(an.Code) {
			return fmt.Errorf("%w: assessment.anomalies[%d].code: %q must be a snake_case code", ErrInvalidParams, i, an.Code)
		}
	}
	return nil
}

// AnomalyUnknownAssessmentFields is the host's anomaly for fields of an
// assessment it does not know (a newer plugin's additions): they are
// dropped and named in the anomaly's message, and the rest of the
// assessment stands.
const AnomalyUnknownAssessmentFields = "unknown_assessment_fields"

// decodeAssessment reads a plugin's assessment JSON. Fields the host does
// not know, at the top level, in parser_metadata or in an anomaly, are not
// an error: a plugin written for a newer host may report more than this
// one understands, and turning its whole state into plugin_error for that
// would throw away a good classification. They are dropped with an
// AnomalyUnknownAssessmentFields anomaly. A known field of the wrong type
// is still an error.
func decodeAssessment(raw []byte) (SurfaceAssessment, error) {
	var a SurfaceAssessment
	if err := strictDecode(raw, &a); err == nil {
		return a, nil
	}
	a = SurfaceAssessment{}
	if err := json.Unmarshal(raw, &a); err != nil {
		return SurfaceAssessment{}, err
	}
	var unknown []string
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return SurfaceAssessment{}, err
	}
	unknown = appendUnknownFields(unknown, "", top, SurfaceAssessment{})
	if pm, ok := top["parser_metadata"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(pm, &m) == nil {
			unknown = appendUnknownFields(unknown, "parser_metadata.", m, ParserMetadata{})
		}
	}
	if an, ok := top["anomalies"]; ok {
		var list []map[string]json.RawMessage
		if json.Unmarshal(an, &list) == nil {
			for i, m := range list {
				unknown = appendUnknownFields(unknown, fmt.Sprintf("anomalies[%d].", i), m, Anomaly{})
			}
		}
	}
	if len(unknown) == 0 {
		// strictDecode failed for another reason (trailing data): report it.
		return SurfaceAssessment{}, strictDecode(raw, &SurfaceAssessment{})
	}
	a.Anomalies = append(a.Anomalies, Anomaly{Code: AnomalyUnknownAssessmentFields,
		Message: "fields this host does not know were dropped: " + strings.Join(unknown, ", ")})
	return a, nil
}

// appendUnknownFields appends prefix+key for each key of m that is not a
// JSON field name of the struct known, sorted.
func appendUnknownFields(out []string, prefix string, m map[string]json.RawMessage, known any) []string {
	names := map[string]bool{}
	t := reflect.TypeOf(known)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names[name] = true
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !names[k] {
			out = append(out, prefix+k)
		}
	}
	return out
}
