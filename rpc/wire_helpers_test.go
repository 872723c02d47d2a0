package rpc

import (
	"encoding/json"
	"log/slog"
	"os"
	"testing"
)

// message is any frame a client receives.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// testLogger shows warnings and errors on stderr; set PTYWRIGHT_TEST_DEBUG
// to see everything.
func testLogger(testing.TB) *slog.Logger {
	level := slog.LevelWarn
	if os.Getenv("PTYWRIGHT_TEST_DEBUG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}
