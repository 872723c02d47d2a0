// Package contract is the provider-agnostic vocabulary every adapter
// speaks (the shared TUI parsing contract): the SurfaceAssessment a plugin
// reports for one snapshot, the LifecycleTracker that reduces assessments to
// a turn lifecycle, the DialogProjection of a snapshot's text, the
// Explanation of a classification, and what a plugin's predicate sees and
// answers when a lua matcher defers to it (PredicateInput,
// PredicateOutcome). It imports nothing of the root package;
// ptywright.StateSnapshot, ExtensionHandle.Lifecycle, ExtensionHandle.Project,
// ExtensionHandle.Explain and Matcher.Lua carry these types.
package contract

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"ptywright/internal/wire"
)

// Availability says whether the tool's surface can be read at all.
type Availability string

// BusinessState says what the tool is doing.
type BusinessState string

// InputMode says what kind of input the tool takes now.
type InputMode string

// UIContext names the screen the tool shows: one of the shared values or a
// provider-specific snake_case name.
type UIContext string

// The shared, provider-agnostic vocabulary of a surface assessment
// (shared-tui-parsing-contracts). Plugins report these; the host validates
// them and derives the turn lifecycle from them.
const (
	AvailabilitySupported    Availability = "supported"
	AvailabilityUnsupported  Availability = "unsupported"
	AvailabilityDisconnected Availability = "disconnected"
	AvailabilityUnknown      Availability = "unknown"

	BusinessIdle             BusinessState = "idle"
	BusinessWorking          BusinessState = "working"
	BusinessAwaitingOperator BusinessState = "awaiting_operator"
	BusinessUnknown          BusinessState = "unknown"

	InputFreeform InputMode = "freeform"
	InputModal    InputMode = "modal"
	InputClosed   InputMode = "closed"
	InputUnknown  InputMode = "unknown"

	UIContextNormalPrompt  UIContext = "normal_prompt"
	UIContextSelectionMenu UIContext = "selection_menu"
	UIContextSlashCommand  UIContext = "slash_command"
	UIContextUnknown       UIContext = "unknown"
)

// Anomaly codes the shared layer defines.
const (
	AnomalyUnknownVersionFloorUsed = "unknown_version_floor_used"
	AnomalyBaselineInvalidated     = "baseline_invalidated"
	AnomalyPresetOverrideUsed      = "preset_override_used"
	AnomalyStalledEntered          = "stalled_entered"
	AnomalyStalledRecovered        = "stalled_recovered"
	// AnomalyUnrecognizedScreen: a screen part no rule of the plugin
	// recognises (a footer or status text, a line between the transcript
	// and the input box). The reading is conservative: never submit-ready.
	AnomalyUnrecognizedScreen = "unrecognized_screen"
)

// SurfaceAssessment is one snapshot's provider-agnostic state.
type SurfaceAssessment struct {
	Availability  Availability  `json:"availability"`
	BusinessState BusinessState `json:"business_state"`
	InputMode     InputMode     `json:"input_mode"`
	// UIContext is a shared value or a provider-specific one (snake_case).
	UIContext UIContext `json:"ui_context"`
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
	// Anomalies are the parser's anomalies, as the parsing contract lists
	// them among the parser metadata: DecodeAssessment fills them from the
	// assessment's own anomalies when the plugin gives none here, and an
	// empty list (never null) when there are none. The assessment's
	// top-level Anomalies carry the same list.
	Anomalies []Anomaly `json:"anomalies"`
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
	if err := checkValue("availability", a.Availability, AvailabilitySupported, AvailabilityUnsupported, AvailabilityDisconnected, AvailabilityUnknown); err != nil {
		return err
	}
	if err := checkValue("business_state", a.BusinessState, BusinessIdle, BusinessWorking, BusinessAwaitingOperator, BusinessUnknown); err != nil {
		return err
	}
	if err := checkValue("input_mode", a.InputMode, InputFreeform, InputModal, InputClosed, InputUnknown); err != nil {
		return err
	}
	if !snakeCase.MatchString(string(a.UIContext)) {
		return fmt.Errorf("%w: assessment.ui_context: %q must be a snake_case context name", wire.ErrInvalidParams, a.UIContext)
	}
	for i, an := range a.Anomalies {
		if !snakeCase.MatchString(an.Code) {
			return fmt.Errorf("%w: assessment.anomalies[%d].code: %q must be a snake_case code", wire.ErrInvalidParams, i, an.Code)
		}
	}
	return nil
}

// checkValue reports v outside allowed, quoting the allowed values as plain
// strings (the wording of the message is part of the JSON-RPC surface).
func checkValue[T ~string](field string, v T, allowed ...T) error {
	names := make([]string, len(allowed))
	for i, ok := range allowed {
		if v == ok {
			return nil
		}
		names[i] = string(ok)
	}
	return fmt.Errorf("%w: assessment.%s: %q is not one of %q", wire.ErrInvalidParams, field, string(v), names)
}

// AnomalyUnknownAssessmentFields is the host's anomaly for fields of an
// assessment it does not know (a newer plugin's additions): they are
// dropped and named in the anomaly's message, and the rest of the
// assessment stands.
const AnomalyUnknownAssessmentFields = "unknown_assessment_fields"

// DecodeAssessment reads a plugin's assessment JSON. Fields the host does
// not know, at the top level, in parser_metadata or in an anomaly, are not
// an error: a plugin written for a newer host may report more than this
// one understands, and turning its whole state into plugin_error for that
// would throw away a good classification. They are dropped with an
// AnomalyUnknownAssessmentFields anomaly. A known field of the wrong type
// is still an error.
func DecodeAssessment(raw []byte) (SurfaceAssessment, error) {
	a, err := decodeAssessment(raw)
	if err == nil && a.ParserMetadata != nil && a.ParserMetadata.Anomalies == nil {
		a.ParserMetadata.Anomalies = append([]Anomaly{}, a.Anomalies...)
	}
	return a, err
}

func decodeAssessment(raw []byte) (SurfaceAssessment, error) {
	var a SurfaceAssessment
	if err := wire.StrictDecode(raw, &a); err == nil {
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
	unknown = wire.AppendUnknownFields(unknown, "", top, SurfaceAssessment{})
	if pm, ok := top["parser_metadata"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(pm, &m) == nil {
			unknown = wire.AppendUnknownFields(unknown, "parser_metadata.", m, ParserMetadata{})
		}
	}
	if an, ok := top["anomalies"]; ok {
		var list []map[string]json.RawMessage
		if json.Unmarshal(an, &list) == nil {
			for i, m := range list {
				unknown = wire.AppendUnknownFields(unknown, fmt.Sprintf("anomalies[%d].", i), m, Anomaly{})
			}
		}
	}
	if len(unknown) == 0 {
		// strictDecode failed for another reason (trailing data): report it.
		return SurfaceAssessment{}, wire.StrictDecode(raw, &SurfaceAssessment{})
	}
	a.Anomalies = append(a.Anomalies, Anomaly{Code: AnomalyUnknownAssessmentFields,
		Message: "fields this host does not know were dropped: " + strings.Join(unknown, ", ")})
	return a, nil
}
