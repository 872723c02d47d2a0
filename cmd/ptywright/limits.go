package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// limitFlags are the caps a server holds to (serve and mcp).
type limitFlags struct {
	// MaxSessions caps open sessions; 0 derives it from the process's
	// limits, -1 means none.
	MaxSessions int
	// MaxMemory caps the server's memory in bytes; 0 derives it (the
	// cgroup's memory.max), -1 means none.
	MaxMemory byteSize
	// MaxCells is each session's cell budget (rows times cols); 0 means
	// ptywright.DefaultMaxCells.
	MaxCells int
}

func (l *limitFlags) bind(fs *flag.FlagSet) {
	fs.IntVar(&l.MaxSessions, "max-sessions", 0, "refuse sessions past `N` open ones; default from the process's limits (RLIMIT_NOFILE, RLIMIT_NPROC), -1 for none")
	fs.Var(&l.MaxMemory, "max-memory", "refuse sessions while the server holds `BYTES` of memory or more (suffix K, M, G, Ki, Mi or Gi); default 3/4 of the cgroup's memory.max, -1 for none")
	fs.IntVar(&l.MaxCells, "max-cells", 0, "each session's cell budget, rows times cols: `N`, default 1000000")
}

func (l limitFlags) check(cmd string) error {
	if l.MaxSessions < -1 {
		return usagef(cmd, "--max-sessions: must be -1 (no cap), 0 (default) or positive, got %d", l.MaxSessions)
	}
	if l.MaxCells < 0 {
		return usagef(cmd, "--max-cells: must not be negative, got %d", l.MaxCells)
	}
	return nil
}

// byteSize is a flag.Value of a byte count with an optional unit.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(s string) error {
	if s == "-1" {
		*b = -1
		return nil
	}
	units := []struct {
		suffix string
		mult   int64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}}
	mult := int64(1)
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = num, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return fmt.Errorf("want a byte count such as 2147483648, 512Mi or 2G, or -1 for none")
	}
	*b = byteSize(n * mult)
	return nil
}
