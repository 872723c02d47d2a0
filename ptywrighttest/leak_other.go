//go:build !unix

package ptywrighttest

import "time"

// survivors finds nothing where ptywright cannot start programs.
func survivors(pid int, marker string, grace time.Duration) []string { return nil }

func killSurvivors(pid int, marker string) {}
