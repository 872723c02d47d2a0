// Command fakeanthropic runs the fake Anthropic Messages API standalone, for
// driving the real Claude Code by hand (capturing fixtures under tmux).
//
//	fakeanthropic -addr 127.0.0.1:18080 -script turns.json -log requests.log > env.sh
//	. ./env.sh; claude
//
// It prints the environment for the client as shell export lines on stdout,
// then serves until interrupted. The script is a JSON array of rules (see
// package fakeanthropic's Rule); SIGHUP re-reads it. Each request is logged on
// one line to -log (stderr by default) once answered; with -bodies its body
// follows.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"ptywright/internal/fakeanthropic"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address for the API")
	script := flag.String("script", "", "JSON file with the rules (an array); re-read on SIGHUP")
	logPath := flag.String("log", "", "append one line per request to this file (default stderr)")
	bodies := flag.Bool("bodies", false, "log request bodies too")
	flag.Parse()

	var out io.Writer = os.Stderr
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		out = f
	}
	var mu sync.Mutex
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, format, args...)
	}
	rules, err := load(*script)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := fakeanthropic.Start(rules, fakeanthropic.WithAddr(*addr),
		fakeanthropic.WithOnRequest(func(r fakeanthropic.Request) {
			logf("%s %s\n", r.Time.Format("15:04:05.000"), r)
			if *bodies && len(r.Body) > 0 {
				logf("%s\n", r.Body)
			}
		}))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	for _, kv := range srv.Env() {
		fmt.Printf("export %s\n", kv)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	for s := range sig {
		if s != syscall.SIGHUP {
			return
		}
		rules, err := load(*script)
		if err != nil {
			logf("reload %s: %v\n", *script, err)
			continue
		}
		srv.SetRules(rules...)
		logf("reloaded %d rules from %s\n", len(rules), *script)
	}
}

func load(path string) ([]fakeanthropic.Rule, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rules []fakeanthropic.Rule
	if err := json.Unmarshal(b, &rules); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rules, nil
}
