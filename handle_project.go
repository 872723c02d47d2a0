package ptywright

// What a handle reads out of the screen for a caller: the dialog without
// the provider's chrome (Project) and an answer between sentinels or by
// pattern (Extract).

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"ptywright/contract"
)

// Projector is implemented by extensions that can strip their provider's
// chrome from a screen (a Lua extension does when the plugin exports
// project(ctx)).
type Projector interface {
	Project(ctx context.Context, cc ClassifyContext) (dialog, projectorID string, ok bool, err error)
}

// Project renders the current screen as a DialogProjection: the plugin's
// projector when it has one, the normalized screen otherwise. head and tail
// are line counts (0: defaults). Its texts are redacted with the handle's
// redactor (HandleOptions.Redactor).
func (h *ExtensionHandle) Project(ctx context.Context, head, tail int) (contract.DialogProjection, error) {
	p, snap, err := h.projectRaw(ctx, head, tail)
	if err != nil {
		return contract.DialogProjection{}, err
	}
	cols := snap.Size.Cols
	return redactProjection(p, cols, h.red.quotingScreen(snap.PlainText, cols)), nil
}

// projectRaw is Project unredacted, with the raw screen it projected.
func (h *ExtensionHandle) projectRaw(ctx context.Context, head, tail int) (contract.DialogProjection, ScreenSnapshot, error) {
	if err := h.turn.lock(ctx); err != nil {
		return contract.DialogProjection{}, ScreenSnapshot{}, err
	}
	defer h.turn.unlock()
	if h.closed {
		return contract.DialogProjection{}, ScreenSnapshot{}, ErrSessionClosed
	}
	return h.projectInTurn(ctx, head, tail)
}

func (h *ExtensionHandle) projectInTurn(ctx context.Context, head, tail int) (contract.DialogProjection, ScreenSnapshot, error) {
	snap := h.s.Snapshot(SnapshotOptions{Raw: true})
	dialog, projector := "", ""
	if p, ok := h.ext.(Projector); ok {
		h.extMu.Lock()
		d, id, ok, err := p.Project(ctx, h.contextLocked(snap))
		h.extMu.Unlock()
		if err != nil {
			return contract.DialogProjection{}, snap, fmt.Errorf("plugin %s: project: %w", h.ext.Manifest().Name, err)
		}
		if ok {
			dialog, projector = d, id
		}
	}
	return contract.NewDialogProjection(snap.PlainText, dialog, h.ext.Manifest().Name, projector, head, tail), snap, nil
}

// Extract runs a caller-owned extraction over the projected dialog,
// redacted with e.Redactor (nil: the handle's redactor) before it is
// searched.
func (h *ExtensionHandle) Extract(ctx context.Context, e Extraction) (ExtractResult, error) {
	p, snap, err := h.projectRaw(ctx, 0, 0)
	if err != nil {
		return ExtractResult{}, err
	}
	// The dialog is the screen laid out anew: hide the pieces of a secret
	// a program wrapped, which no pattern finds in it (quotingScreen).
	return e.Extract(e.Redactor.or(h.red).quotingScreen(snap.PlainText, snap.Size.Cols).Redact(p.DialogText))
}

// Extraction is caller-owned answer association over projected dialog.
type Extraction struct {
	// Regex searches the last TailChars characters; the first capture group
	// (or the whole match) is the answer.
	Regex string `json:"regex,omitempty"`
	// Sentinels [start, end] delimit the answer after the last start marker.
	Sentinels []string `json:"sentinels,omitempty"`
	// TailChars bounds the searched text (0: all of it).
	TailChars int `json:"tail_chars,omitempty"`
	// Redactor redacts the dialog before ExtensionHandle.Extract searches
	// it, so the answer is redacted like every other read: nil means the
	// handle's redactor (HandleOptions.Redactor), NoRedaction searches the
	// raw dialog. Extraction.Extract searches the text it is given as it is.
	Redactor *Redactor `json:"-"`
}

// ExtractResult is an extracted answer, or the report that none was found.
type ExtractResult struct {
	// Matched is false when the pattern or sentinels were not in the
	// searched text (Extract then also returns ErrNoMatch).
	Matched bool   `json:"matched"`
	Text    string `json:"text"`
	Method  string `json:"method"`
	// SearchedChars is how many characters were searched: the dialog, or
	// its last TailChars.
	SearchedChars int `json:"searched_chars"`
}

// Extract runs e over text.
func (e Extraction) Extract(text string) (ExtractResult, error) {
	if e.TailChars < 0 {
		return ExtractResult{}, fmt.Errorf("%w: tail_chars: must not be negative", ErrInvalidParams)
	}
	if (e.Regex == "") == (len(e.Sentinels) == 0) {
		return ExtractResult{}, fmt.Errorf("%w: exactly one of regex or sentinels is required", ErrInvalidParams)
	}
	searched := utf8.RuneCountInString(text)
	if e.TailChars > 0 && searched > e.TailChars {
		r := []rune(text)
		text, searched = string(r[len(r)-e.TailChars:]), e.TailChars
	}
	if e.Regex != "" {
		re, err := regexp.Compile(e.Regex)
		if err != nil {
			return ExtractResult{}, fmt.Errorf("%w: regex: %v", ErrInvalidParams, err)
		}
		all := re.FindAllStringSubmatchIndex(text, -1)
		if len(all) == 0 {
			return ExtractResult{Method: "tail_regex", SearchedChars: searched}, fmt.Errorf("%w: regex %q in %d characters", ErrNoMatch, e.Regex, searched)
		}
		return ExtractResult{Matched: true, Text: *capture(text, all[len(all)-1]), Method: "tail_regex", SearchedChars: searched}, nil
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
			return ExtractResult{Matched: true, Text: strings.TrimSpace(unwrap(body[:j])), Method: "sentinel", SearchedChars: searched}, nil
		}
	}
	return ExtractResult{Method: "sentinel", SearchedChars: searched}, fmt.Errorf("%w: sentinels %q…%q in %d characters", ErrNoMatch, start, end, searched)
}

// unwrap joins a payload the terminal wrapped over several rows.
func unwrap(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}
