//go:build unix && !linux

package ptywrighttest

import (
	"fmt"
	"syscall"
	"time"
)

// survivors reports whether the process group pid still has members,
// waiting up to grace for them to go. Without /proc, processes that left
// the group for one of their own are not seen, marker or not.
func survivors(pid int, marker string, grace time.Duration) []string {
	deadline := time.Now().Add(grace)
	for {
		if syscall.Kill(-pid, 0) != nil {
			return nil
		}
		if time.Now().After(deadline) {
			return []string{fmt.Sprintf("process group %d", pid)}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func killSurvivors(pid int, marker string) {
	_ = syscall.Kill(-pid, syscall.SIGKILL) // Best effort: the group may be gone already.
}
