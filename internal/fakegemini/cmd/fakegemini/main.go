// Command fakegemini runs the fake Gemini API with the demo script, for
// driving the real Gemini CLI by hand (fixture captures, debugging).
//
//	fakegemini -addr 127.0.0.1:18556 -home $HOME -workdir $PWD
//
// It prints the base URL (the value of GOOGLE_GEMINI_BASE_URL),
// optionally writes $HOME/.gemini/settings.json for the fake, and logs one
// line per request to stderr (and, with -requests, every request as a JSON
// line to a file). Prompts containing the trigger words of
// fakegemini.DemoScript (ANSWER, TOOL, SLOW, LONG, ERR429, ERR401, ERR500,
// OVERLOADED, ...) select a behaviour. Stop it with SIGINT or SIGTERM.
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

	"ptywright/internal/fakegemini"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakegemini:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	home := flag.String("home", "", "write .gemini/settings.json for the fake into this HOME")
	workdir := flag.String("workdir", "", "directory to mark trusted in the written trustedFolders.json")
	requests := flag.String("requests", "", "append every request as a JSON line to this file")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, err := fakegemini.Listen(*addr, fakegemini.DemoScript(), fakegemini.Options{Logger: log})
	if err != nil {
		return err
	}
	defer srv.Close()
	if *home != "" {
		if err := (fakegemini.Settings{Workdir: *workdir}).Write(*home); err != nil {
			return err
		}
	}
	fmt.Println(srv.URL)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *requests == "" {
		<-ctx.Done()
		return nil
	}
	return dump(ctx, srv, *requests)
}

// dump appends each request, once answered, to path as a JSON line.
func dump(ctx context.Context, srv *fakegemini.Server, path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	written := 0
	for {
		r, err := srv.WaitRequest(ctx, func(r fakegemini.Request) bool { return r.Seq == written+1 && r.Status != 0 })
		if err != nil {
			return nil // ctx ended: normal shutdown
		}
		if err := enc.Encode(map[string]any{"seq": r.Seq, "method": r.Method, "path": r.Path, "query": r.Query,
			"kind": r.Kind, "rule": r.Rule, "status": r.Status, "aborted": r.Aborted, "body": json.RawMessage(orNull(r.Body))}); err != nil {
			return err
		}
		written++
	}
}

func orNull(b []byte) []byte {
	if len(b) == 0 || !json.Valid(b) {
		return []byte("null")
	}
	return b
}
