//go:build linux

// Command daemonize starts a daemon the way servers detach from their
// terminal (Codex's app-server daemon, language servers, ssh-agent): a first
// child calls setsid (a new session and process group, no controlling
// terminal) and starts the daemon in a process group of its own, then exits,
// so the daemon is orphaned and reparented to init. Neither the group kill
// nor the terminal session reach it.
//
//	daemonize [-exit] [-ignore-term]
//
// It prints "DAEMON=<pid> PGID=<pgid> SID=<sid>" once the daemon runs, then
// "LAUNCHED", and stays in the foreground unless -exit. With -ignore-term
// the daemon ignores SIGTERM, so only SIGKILL ends it. The daemon ignores
// SIGHUP, holds no terminal, and exits by itself after -lifetime so that a
// broken test cannot leave it behind for long.
//
// The ptywright tests build and run it (detach_linux_test.go).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	stage := flag.String("stage", "", "internal: which fork this is")
	exit := flag.Bool("exit", false, "exit once the daemon runs instead of staying in the foreground")
	ignoreTerm := flag.Bool("ignore-term", false, "the daemon ignores SIGTERM")
	lifetime := flag.Duration("lifetime", 10*time.Minute, "the daemon exits by itself after this long")
	flag.Parse()
	var err error
	switch *stage {
	case "":
		err = launch(*exit, *ignoreTerm, *lifetime)
	case "leader":
		err = leader(*ignoreTerm, *lifetime)
	case "daemon":
		err = daemon(*ignoreTerm, *lifetime)
	default:
		err = fmt.Errorf("unknown stage %q", *stage)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "daemonize:", err)
		os.Exit(1)
	}
}

func self(stage string, ignoreTerm bool, lifetime time.Duration, attr *syscall.SysProcAttr, report *os.File) *exec.Cmd {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-stage="+stage, fmt.Sprintf("-ignore-term=%t", ignoreTerm), "-lifetime="+lifetime.String())
	cmd.SysProcAttr = attr
	cmd.ExtraFiles = []*os.File{report} // fd 3: where the daemon reports
	cmd.Stderr = os.Stderr
	return cmd
}

// launch runs the first fork, relays the daemon's report and reaps the
// first fork.
func launch(exit, ignoreTerm bool, lifetime time.Duration) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := self("leader", ignoreTerm, lifetime, &syscall.SysProcAttr{Setsid: true}, w)
	if err := cmd.Start(); err != nil {
		return err
	}
	_ = w.Close()
	report, err := io.ReadAll(r) // EOF once the leader and the daemon closed fd 3.
	if err != nil {
		return err
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("leader: %w", err)
	}
	if len(report) == 0 {
		return fmt.Errorf("the daemon did not report")
	}
	fmt.Printf("%sLAUNCHED\n", report)
	if exit {
		return nil
	}
	for {
		time.Sleep(time.Hour)
	}
}

// leader is the new session's leader: it starts the daemon in a process
// group of its own and exits, orphaning it.
func leader(ignoreTerm bool, lifetime time.Duration) error {
	report := os.NewFile(3, "report")
	cmd := self("daemon", ignoreTerm, lifetime, &syscall.SysProcAttr{Setpgid: true}, report)
	cmd.Stderr = nil
	return cmd.Start()
}

func daemon(ignoreTerm bool, lifetime time.Duration) error {
	signal.Ignore(syscall.SIGHUP)
	if ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	pid := os.Getpid()
	pgid, err := syscall.Getpgid(pid)
	if err != nil {
		return err
	}
	sid, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, 0, 0, 0)
	if errno != 0 {
		return errno
	}
	report := os.NewFile(3, "report")
	fmt.Fprintf(report, "DAEMON=%d PGID=%d SID=%d\n", pid, pgid, sid)
	_ = report.Close()
	time.Sleep(lifetime)
	return nil
}
