package ptywright_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"ptywright"
)

// The test binary's child mode that holds sessions for a test to kill
// (crash_linux_test.go).

// hupImmuneScript ignores SIGHUP, as a program under nohup does, so that
// the hangup of its terminal does not end it, and says so before it sleeps.
const hupImmuneScript = `trap "" HUP; echo IMMUNE; exec sleep 300`

// runSessionsChild starts sessions whose programs ignore SIGHUP, prints
// "PIDS" and their pids, and holds them until stdin closes.
func runSessionsChild() int {
	n, _ := strconv.Atoi(os.Getenv("PTYWRIGHT_TEST_SESSIONS"))
	pids := make([]string, 0, n)
	for range n {
		s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", hupImmuneScript}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err = s.Wait(ctx, ptywright.ContainsText("IMMUNE"))
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		pids = append(pids, strconv.Itoa(s.Pid()))
	}
	fmt.Printf("PIDS %s\n", strings.Join(pids, " "))
	_, _ = io.Copy(io.Discard, os.Stdin) // Until the test is done with us, or kills us.
	return 0
}
