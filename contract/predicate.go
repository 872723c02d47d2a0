package contract

import (
	"context"
	"encoding/json"
)

// PredicateRegistry decides lua matchers: a wait whose matcher has a lua
// branch asks it (ptywright.WithPredicates, HandleOptions.Predicates).
// plugins.Registry implements it with the plugins' Lua functions; a Go
// program may implement it too.
type PredicateRegistry interface {
	EvalPredicate(ctx context.Context, plugin, predicate string, in PredicateInput) (PredicateOutcome, error)
}

// PredicateInput is what a predicate sees.
type PredicateInput struct {
	Screen        string           `json:"screen"`
	Transcript    string           `json:"transcript"`
	Sequence      uint64           `json:"sequence"`
	StableMs      int64            `json:"stable_ms"`
	ProcessExited bool             `json:"process_exited"`
	Markers       map[string]int64 `json:"markers"`
	Cursor        int64            `json:"cursor"`
	Params        json.RawMessage  `json:"params,omitempty"`
}

// PredicateOutcome is a predicate's verdict.
type PredicateOutcome struct {
	Matched  bool
	Evidence any
	Capture  *string
}

// LuaPredicate names the plugin function that decides a lua matcher, and
// the params it is given.
type LuaPredicate struct {
	Plugin    string          `json:"plugin"`
	Predicate string          `json:"predicate"`
	Params    json.RawMessage `json:"params,omitempty"`
}
