package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progress reports a long call's elapsed time to a client that sent a
// progress token, every ProgressInterval, until the returned stop is
// called (which waits for the reporter to end). Without a token it does
// nothing: the client did not ask.
func (c *client) progress(ctx context.Context, req *mcp.CallToolRequest, what string) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		t := time.NewTicker(c.srv.opts.ProgressInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			elapsed := time.Since(start)
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token,
				Progress:      float64(elapsed.Milliseconds()),
				Message:       fmt.Sprintf("%s: %s elapsed", what, elapsed.Round(100*time.Millisecond)),
			})
			if err != nil && ctx.Err() == nil {
				c.srv.log.Debug("progress notification", "err", err)
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}
