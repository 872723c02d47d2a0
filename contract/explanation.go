package contract

// An explanation is what ptywright.ExtensionHandle.Explain (adapter.explain
// over JSON-RPC) reports, its texts redacted by the handle.

// Explanation is the account of one classification: which of the plugin's
// rules fired, on which rows, with what evidence, what else it considered
// and why not, and the parser's provenance and anomalies. Plugins name
// their rules with stable ids (classify returns rule = "claude.permission").
type Explanation struct {
	State      string  `json:"state"`
	Confidence float64 `json:"confidence"`
	Sequence   uint64  `json:"sequence"`
	// Rule is the id of the rule that fired, "" when the plugin names none.
	Rule string `json:"rule,omitempty"`
	// Region is the screen rows the rule matched, when the plugin says.
	Region *RowRegion `json:"region,omitempty"`
	// Evidence is the classification's evidence text.
	Evidence string `json:"evidence"`
	// Considered lists the states or rules the plugin tried and rejected,
	// with why.
	Considered []ConsideredState `json:"considered,omitempty"`
	// ParserVersion is the parser preset's version (from the assessment's
	// parser_metadata), Parser the whole provenance.
	ParserVersion string          `json:"parser_version,omitempty"`
	Parser        *ParserMetadata `json:"parser,omitempty"`
	// Anomalies are the assessment's (unknown version, fallback...).
	Anomalies []Anomaly `json:"anomalies,omitempty"`
	// ScreenCols is the width of the screen classified (0: unknown). The
	// texts may quote its rows; a redactor that knows the width finds a
	// secret the terminal wrapped across them. Not on the wire.
	ScreenCols int `json:"-"`
	// Screen is the classified screen's text, raw, kept only when the
	// explanation was asked for raw: redacting, the handle finds in it
	// the secrets that a text quoting the screen laid out anew (a plugin
	// joins a prompt's rows) holds in pieces, and drops it. Not on the
	// wire.
	Screen string `json:"-"`
}

// RowRegion is a span of screen rows, 1-based and inclusive.
type RowRegion struct {
	FirstRow int `json:"first_row"`
	LastRow  int `json:"last_row"`
}

// ConsideredState is a state or rule a classifier tried and rejected.
type ConsideredState struct {
	State  string `json:"state,omitempty"`
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason,omitempty"`
}
