package contract

import "strings"

// Default slice sizes of a DialogProjection.
const (
	DefaultProjectionHeadLines = 20
	DefaultProjectionTailLines = 20
)

// DialogProjection is the dialog-oriented rendering of one snapshot.
// dialog_text is best effort: for machine-critical answers prefer a
// sentinel-delimited payload and Extract.
type DialogProjection struct {
	RawText string `json:"raw_text"`
	// NormalizedText is the ANSI-free screen text with no-break spaces made
	// plain and trailing blank space removed: the lifecycle's evidence.
	NormalizedText string `json:"normalized_text"`
	// DialogText is the projected dialog with provider chrome removed.
	DialogText string    `json:"dialog_text"`
	Head       string    `json:"head"`
	Tail       string    `json:"tail"`
	Metadata   ProjMeta  `json:"projection_metadata"`
	Anomalies  []Anomaly `json:"anomalies,omitempty"`
}

// ProjMeta says how a projection was produced.
type ProjMeta struct {
	ProviderID      string `json:"provider_id,omitempty"`
	SourceKind      string `json:"source_kind"`
	ProjectorID     string `json:"projector_id"`
	DialogLineCount int    `json:"dialog_line_count"`
	HeadLineCount   int    `json:"head_line_count"`
	TailLineCount   int    `json:"tail_line_count"`
}

// NormalizeText strips what differs between renderings of the same
// content: no-break spaces, trailing spaces, trailing blank lines.
func NormalizeText(s string) string {
	s = strings.ReplaceAll(s, "\u00a0", " ")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// NewDialogProjection assembles a projection from the raw screen text and the
// dialog text a provider's projector chose ("" falls back to the normalized
// body). head and tail count lines; 0 means the defaults.
func NewDialogProjection(raw, dialog, providerID, projectorID string, head, tail int) DialogProjection {
	if head <= 0 {
		head = DefaultProjectionHeadLines
	}
	if tail <= 0 {
		tail = DefaultProjectionTailLines
	}
	p := DialogProjection{RawText: raw, NormalizedText: NormalizeText(raw)}
	if dialog == "" {
		dialog = p.NormalizedText
		if projectorID == "" {
			projectorID = "host.normalized_body"
		}
	}
	p.DialogText = NormalizeText(dialog)
	lines := strings.Split(p.DialogText, "\n")
	if p.DialogText == "" {
		lines = nil
	}
	h := lines[:min(head, len(lines))]
	t := lines[len(lines)-min(tail, len(lines)):]
	p.Head, p.Tail = strings.Join(h, "\n"), strings.Join(t, "\n")
	p.Metadata = ProjMeta{ProviderID: providerID, SourceKind: "tui_snapshot", ProjectorID: projectorID,
		DialogLineCount: len(lines), HeadLineCount: len(h), TailLineCount: len(t)}
	return p
}
