//go:build unix

package rpc

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCreateRefusedPastMaxSessions: past --max-sessions, session.create
// and adapter.start answer -32007 saying which limit, nothing running is
// touched, and a closed session's slot is free again at once.
func TestCreateRefusedPastMaxSessions(t *testing.T) {
	c := dialUnix(t, serveUnix(t, newServer(t, Options{Plugins: newPlugins(t, echoManifest), MaxSessions: 3})), NDJSON)
	var caps Capabilities
	c.do("server.capabilities", nil, &caps)
	require.Equal(t, 3, caps.MaxSessions)
	require.Equal(t, int64(CodeCapacity), caps.ErrorCodes["capacity"])

	first := c.create(map[string]any{"program": "cat"})
	c.create(map[string]any{"program": "cat"})
	a := c.startAdapter(map[string]any{"plugin": "echo", "program": "cat"})

	e := c.callErr("session.create", map[string]any{"program": "cat"})
	requireError(t, e, CodeCapacity, "at capacity: 3 of 3 sessions in use")
	require.Equal(t, map[string]any{"limit": "sessions", "max": 3.0, "in_use": 3.0}, errData(t, e))
	e = c.callErr("adapter.start", map[string]any{"plugin": "echo", "program": "cat"})
	requireError(t, e, CodeCapacity, "3 of 3 sessions in use")

	// What runs goes on: the first session still echoes, the adapter
	// still answers.
	c.do("session.input", map[string]any{"session": first, "action": map[string]any{"type": "text", "value": "still here\r"}}, nil)
	c.wait(first, map[string]any{"type": "screen_regex", "value": "still here\\n.*still here"})
	c.sendText(a.Adapter, "adapter too")
	var list sessionListResult
	c.do("session.list", nil, &list)
	require.Len(t, list.Sessions, 3)

	c.do("session.close", map[string]any{"session": first}, nil)
	c.create(map[string]any{"program": "cat"})
	c.do("adapter.close", map[string]any{"adapter": a.Adapter}, nil)
	c.startAdapter(map[string]any{"plugin": "echo", "program": "cat"})
}

// TestConcurrentCreatesNeverPassTheCap: creates racing for the last slots
// get exactly as many sessions as the cap leaves, the rest -32007.
func TestConcurrentCreatesNeverPassTheCap(t *testing.T) {
	const limit, callers = 4, 16
	path := serveUnix(t, newServer(t, Options{MaxSessions: limit}))
	for round := range 5 {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var made []string
		refused := 0
		for range callers {
			wg.Go(func() {
				c := dialUnix(t, path, NDJSON)
				raw, e := c.call("session.create", map[string]any{"program": "cat"})
				mu.Lock()
				defer mu.Unlock()
				if e != nil {
					require.Equal(t, int64(CodeCapacity), e.Code, e.Message)
					refused++
					return
				}
				var res sessionResult
				require.NoError(t, json.Unmarshal(raw, &res))
				made = append(made, res.Session)
			})
		}
		wg.Wait()
		require.Len(t, made, limit, "round %d", round)
		require.Equal(t, callers-limit, refused, "round %d", round)
		c := dialUnix(t, path, NDJSON)
		for _, id := range made {
			c.do("session.close", map[string]any{"session": id}, nil)
		}
	}
}

// TestSizesBeyondTheCellBudgetRefused: rows times cols is bounded on
// create, adapter.start and resize; a refused resize leaves the session as
// it was.
func TestSizesBeyondTheCellBudgetRefused(t *testing.T) {
	c := dialUnix(t, serveUnix(t, newServer(t, Options{Plugins: newPlugins(t, echoManifest)})), NDJSON)
	var caps Capabilities
	c.do("server.capabilities", nil, &caps)
	require.Equal(t, 1_000_000, caps.MaxCells)

	e := c.callErr("session.create", map[string]any{"program": "cat", "rows": 10000, "cols": 10000})
	requireError(t, e, CodeInvalidParams, "size: 10000 rows x 10000 cols is 100000000 cells, over the budget of 1000000 cells per screen")
	e = c.callErr("adapter.start", map[string]any{"plugin": "echo", "program": "cat", "rows": 5000, "cols": 5000})
	requireError(t, e, CodeInvalidParams, "over the budget of 1000000 cells")
	e = c.callErr("adapter.start", map[string]any{"plugin": "echo", "program": "cat", "rows": 2000, "cols": 600})
	requireError(t, e, CodeInvalidParams, "over the budget")
	id := c.create(map[string]any{"program": "cat", "rows": 1000, "cols": 1000})
	e = c.callErr("session.resize", map[string]any{"session": id, "rows": 1001, "cols": 1000})
	requireError(t, e, CodeInvalidParams, "size: 1001 rows x 1000 cols")
	// A wait's snapshot leaves the cells out: a million of them would
	// cost this test seconds.
	size := c.wait(id, map[string]any{"type": "screen_regex", "value": ""}).Snapshot.Size
	require.Equal(t, 1000, size.Rows)
	require.Equal(t, 1000, size.Cols)
}

// TestALargerCellBudgetTakesTheLargerScreen: --max-cells raises the
// budget, and holds resizes to it.
func TestALargerCellBudgetTakesTheLargerScreen(t *testing.T) {
	var caps Capabilities
	big := dialUnix(t, serveUnix(t, newServer(t, Options{MaxCells: 2_000_000})), NDJSON)
	big.do("server.capabilities", nil, &caps)
	require.Equal(t, 2_000_000, caps.MaxCells)
	id := big.create(map[string]any{"program": "cat", "rows": 2000, "cols": 1000})
	big.do("session.resize", map[string]any{"session": id, "rows": 1000, "cols": 2000}, nil)
	e := big.callErr("session.resize", map[string]any{"session": id, "rows": 2001, "cols": 1000})
	requireError(t, e, CodeInvalidParams, "over the budget of 2000000 cells")
}
