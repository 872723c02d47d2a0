// Command fakeopenai runs the fake OpenAI Responses API with the demo script,
// for driving the real Codex CLI by hand (fixture captures, debugging).
//
//	fakeopenai -addr 127.0.0.1:18555 -codex-home $HOME/.codex -workdir $PWD
//
// It prints the base URL, optionally writes a matching config.toml, and logs
// one line per request to stderr (and, with -requests, every request body as
// JSON lines to a file). Prompts containing the trigger words of
// fakeopenai.DemoScript (ANSWER, TOOL, SLOW, LONG, ERR429, ERR401, ERR500,
// FAILED) select a behaviour. Stop it with SIGINT or SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"ptywright/internal/fakeopenai"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakeopenai:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	codexHome := flag.String("codex-home", "", "write config.toml for the fake into this CODEX_HOME")
	workdir := flag.String("workdir", "", "directory to mark trusted in the written config")
	approval := flag.String("approval", "on-request", "approval_policy for the written config")
	sandbox := flag.String("sandbox", "workspace-write", "sandbox_mode for the written config")
	retries := flag.Int("retries", 0, "request/stream retries for the written config")
	requests := flag.String("requests", "", "append every request as a JSON line to this file")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, err := fakeopenai.Listen(*addr, fakeopenai.DemoScript(), fakeopenai.Options{Logger: log})
	if err != nil {
		return err
	}
	defer srv.Close()
	if *codexHome != "" {
		cfg := fakeopenai.CodexConfig{BaseURL: srv.BaseURL(), Workdir: *workdir,
			ApprovalPolicy: *approval, SandboxMode: *sandbox, Retries: *retries}
		if err := cfg.Write(*codexHome); err != nil {
			return err
		}
	}
	fmt.Println(srv.BaseURL())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *requests == "" {
		<-ctx.Done()
		return nil
	}
	return dump(ctx, srv, *requests)
}

// dump appends each request, once answered, to path as a JSON line.
func dump(ctx context.Context, srv *fakeopenai.Server, path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	written := 0
	for {
		r, err := srv.WaitRequest(ctx, func(r fakeopenai.Request) bool { return r.Seq == written+1 && r.Status != 0 })
		if err != nil {
			return nil // ctx ended: normal shutdown
		}
		line := map[string]any{"seq": r.Seq, "method": r.Method, "path": r.Path, "kind": r.Kind,
			"rule": r.Rule, "status": r.Status, "aborted": r.Aborted, "tools": r.Tools,
			"last_user": r.LastUserText(), "header": r.Header, "body": json.RawMessage(orNull(r.Body))}
		if err := enc.Encode(line); err != nil {
			return err
		}
		written = r.Seq
	}
}

func orNull(b []byte) []byte {
	if json.Valid(b) && len(b) > 0 {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}
