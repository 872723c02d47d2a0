package ptywright_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"ptywright"
)

// The test binary's child mode that holds sessions in a process of its
// own, whose threads a test can count (scale_linux_test.go).

// scaleFigures is what runScaleChild measured.
type scaleFigures struct {
	Sessions       int     `json:"sessions"`
	ThreadsIdle    int     `json:"threads_idle"`    // before the first session
	Threads        int     `json:"threads"`         // with every session running
	RSSKiB         int     `json:"rss_kib"`         // with every session running
	CreateMs       float64 `json:"create_ms"`       // all of them, one after another
	CloseOneMs     float64 `json:"close_one_ms"`    // mean of closeOne Closes, one after another, the rest still running
	CloseAllMs     float64 `json:"close_all_ms"`    // the rest at once, as Server.Close does
	ThreadsClosing int     `json:"threads_closing"` // after the Closes
}

const scaleCloseOne = 20

// runScaleChild starts PTYWRIGHT_TEST_SESSIONS sessions of sleep, prints
// scaleFigures as JSON, and closes them.
func runScaleChild() int {
	n, _ := strconv.Atoi(os.Getenv("PTYWRIGHT_TEST_SESSIONS"))
	fig := scaleFigures{Sessions: n, ThreadsIdle: procStatus("Threads")}
	sessions := make([]*ptywright.Session, 0, n)
	start := time.Now()
	for range n {
		s, err := ptywright.Start(ptywright.Options{Program: "sleep", Args: []string{"300"}, CloseGrace: time.Second})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			for _, s := range sessions {
				_ = s.Close()
			}
			return 1
		}
		sessions = append(sessions, s)
	}
	fig.CreateMs = ms(time.Since(start))
	time.Sleep(100 * time.Millisecond) // Every session's goroutines are parked.
	fig.Threads, fig.RSSKiB = procStatus("Threads"), procStatus("VmRSS")

	one := min(scaleCloseOne, n)
	start = time.Now()
	for _, s := range sessions[:one] {
		_ = s.Close() // Its errors are not what is measured.
	}
	fig.CloseOneMs = ms(time.Since(start)) / float64(max(one, 1))
	start = time.Now()
	var wg sync.WaitGroup
	for _, s := range sessions[one:] {
		wg.Go(func() { _ = s.Close() })
	}
	wg.Wait()
	fig.CloseAllMs = ms(time.Since(start))
	fig.ThreadsClosing = procStatus("Threads")
	_ = json.NewEncoder(os.Stdout).Encode(fig) // Stdout is the test's pipe.
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// procStatus reads a number from /proc/self/status (kB for sizes), -1
// where there is none.
func procStatus(key string) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err == nil {
				return n
			}
		}
	}
	return -1
}
