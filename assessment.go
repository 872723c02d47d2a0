package ptywright

import (
	"fmt"
	"regexp"
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
