package rpc

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// childModeEnv makes the test binary act as a small child program, so tests
// and benchmarks need no separately built helper.
const childModeEnv = "PTYWRIGHT_RPC_TEST_CHILD"

// TestMain fails the run when any goroutine of ours outlives the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv(childModeEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	code := m.Run()
	if code == 0 {
		if leaked := ourGoroutines(2 * time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines leaked by ptywright:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// runChild is the child's main. "stamp": for every input line N, print
// "M<N> T=<unix nanoseconds>" so the parent can measure how long output
// takes to reach a client.
func runChild(mode string) int {
	switch mode {
	case "waitclient":
		return waitClient()
	case "stamp":
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			fmt.Printf("M%s T=%d\r\n", strings.TrimSpace(in.Text()), time.Now().UnixNano())
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown child mode %q\n", mode)
	return 2
}

// waitClient is a client that queues one session.wait that never matches
// on the socket $PTYWRIGHT_RPC_TEST_SOCKET, for the session
// $PTYWRIGHT_RPC_TEST_SESSION, says "sent" and then waits to be killed.
func waitClient() int {
	nc, err := net.Dial("unix", os.Getenv("PTYWRIGHT_RPC_TEST_SOCKET"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer nc.Close()
	_, err = fmt.Fprintf(nc, `{"jsonrpc":"2.0","id":1,"method":"session.wait","params":{"session":%q,"matcher":{"type":"contains_text","value":"never"},"timeout_ms":30000}}`+"\n", os.Getenv("PTYWRIGHT_RPC_TEST_SESSION"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("sent")
	_, _ = io.Copy(io.Discard, os.Stdin) // until killed
	return 0
}

// ourGoroutines waits up to d for goroutines running ptywright code (root
// package or rpc) to end and returns the stacks of those still alive.
func ourGoroutines(d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var leaked []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			ours := strings.Contains(g, "ptywright.(*") || strings.Contains(g, "ptywright/rpc.")
			test := strings.Contains(g, "testing.tRunner") || strings.Contains(g, "testing.(*B)") ||
				strings.Contains(g, "rpc.TestMain") || strings.Contains(g, "rpc.(*client)")
			if ours && !test {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			return strings.Join(leaked, "\n\n")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
