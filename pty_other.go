//go:build !unix

package ptywright

import "os"

// process is the platform half of a Session. Spawning on a PTY is only
// implemented for Unix so far; elsewhere Start returns ErrUnsupported.
type process struct {
	master *os.File
}

func startProcess(program string, args []string, dir string, env []string, size Size) (*process, error) {
	return nil, ErrUnsupported
}

func (p *process) pid() int { return 0 }

func (p *process) writeInput([]byte, *int) error { return ErrUnsupported }

func (p *process) interruptBySignal() (bool, error) { return false, ErrUnsupported }

// outOfResources: nothing is started here, so nothing runs out.
func outOfResources(error) bool { return false }

func (p *process) wait() ExitStatus { return ExitStatus{Code: -1, Err: ErrUnsupported} }

func (p *process) signalGroup(sig Signal, ended bool) error { return ErrUnsupported }

func (p *process) reap() {}

func (p *process) setSize(s Size) error { return ErrUnsupported }
