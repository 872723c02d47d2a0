package ptywright

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

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

// ErrNoMatch is returned by extraction when the pattern or sentinels are not
// in the text.
var ErrNoMatch = errors.New("ptywright: no match")

// Extraction is caller-owned answer association over projected dialog.
type Extraction struct {
	// Regex searches the last TailChars characters; the first capture group
	// (or the whole match) is the answer.
	Regex string `json:"regex,omitempty"`
	// Sentinels [start, end] delimit the answer after the last start marker.
	Sentinels []string `json:"sentinels,omitempty"`
	// TailChars bounds the searched text (0: all of it).
	TailChars int `json:"tail_chars,omitempty"`
	// Redactor redacts the dialog before it is searched, so the answer is
	// redacted like every other read: nil means DefaultRedactor,
	// NoRedaction searches the raw dialog (ExtensionHandle.Extract).
	Redactor *Redactor `json:"-"`
}

// ExtractResult is an extracted answer.
type ExtractResult struct {
	Text   string `json:"text"`
	Method string `json:"method"`
}

// Extract runs e over text.
func (e Extraction) Extract(text string) (ExtractResult, error) {
	if e.TailChars < 0 {
		return ExtractResult{}, fmt.Errorf("%w: tail_chars: must not be negative", ErrInvalidParams)
	}
	if (e.Regex == "") == (len(e.Sentinels) == 0) {
		return ExtractResult{}, fmt.Errorf("%w: exactly one of regex or sentinels is required", ErrInvalidParams)
	}
	if e.TailChars > 0 {
		if r := []rune(text); len(r) > e.TailChars {
			text = string(r[len(r)-e.TailChars:])
		}
	}
	if e.Regex != "" {
		re, err := regexp.Compile(e.Regex)
		if err != nil {
			return ExtractResult{}, fmt.Errorf("%w: regex: %v", ErrInvalidParams, err)
		}
		all := re.FindAllStringSubmatchIndex(text, -1)
		if len(all) == 0 {
			return ExtractResult{}, fmt.Errorf("%w: regex %q", ErrNoMatch, e.Regex)
		}
		return ExtractResult{Text: *capture(text, all[len(all)-1]), Method: "tail_regex"}, nil
	}
	if len(e.Sentinels) != 2 || e.Sentinels[0] == "" || e.Sentinels[1] == "" {
		return ExtractResult{}, fmt.Errorf("%w: sentinels: need [start, end], both non-empty", ErrInvalidParams)
	}
	start, end := e.Sentinels[0], e.Sentinels[1]
	// The last start marker wins: a prompt that quotes the sentinels comes
	// before the model's answer. Its end must follow, or the answer is not
	// complete yet.
	if i := strings.LastIndex(text, start); i >= 0 {
		body := text[i+len(start):]
		if j := strings.Index(body, end); j >= 0 {
			return ExtractResult{Text: strings.TrimSpace(unwrap(body[:j])), Method: "sentinel"}, nil
		}
	}
	return ExtractResult{}, fmt.Errorf("%w: sentinels %q…%q", ErrNoMatch, start, end)
}

// unwrap joins a payload the terminal wrapped over several rows.
func unwrap(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}
