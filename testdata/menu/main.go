// Command menu draws a small menu and, like a TUI that has drawn its first
// frame before its input handler is attached, drops every key typed during
// its first -deaf milliseconds. Then "1" or "2" picks a fruit. With
// -startup it first shows "Waiting for startup" for that many milliseconds,
// dropping keys, as Codex does before it takes a prompt. The receipt and
// input-readiness tests drive it.
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"
)

func main() {
	deaf := flag.Int("deaf", 300, "milliseconds during which keys are dropped")
	startup := flag.Int("startup", 0, "milliseconds of a start-up screen before the menu")
	flag.Parse()
	old, err := raw(0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "menu:", err)
		os.Exit(1)
	}
	defer setTermios(0, old)
	if *startup > 0 {
		fmt.Print("\033[2J\033[HWaiting for startup\r\n")
		time.Sleep(time.Duration(*startup) * time.Millisecond)
		flushInput(0)
	}
	fmt.Print("\033[2J\033[HPick a fruit:\r\n  1. Apples\r\n  2. Pears\r\n> ")
	if *deaf > 0 {
		time.Sleep(time.Duration(*deaf) * time.Millisecond)
		flushInput(0) // What was typed so far is lost, as in the real programs.
	}
	buf := make([]byte, 1)
	for {
		if _, err := os.Stdin.Read(buf); err != nil {
			return
		}
		switch buf[0] {
		case '1':
			fmt.Print("\033[2J\033[HYou chose Apples\r\n")
		case '2':
			fmt.Print("\033[2J\033[HYou chose Pears\r\n")
		case 'q':
			return
		}
	}
}

func raw(fd int) (*syscall.Termios, error) {
	var t syscall.Termios
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return nil, e
	}
	old := t
	t.Lflag &^= syscall.ICANON | syscall.ECHO | syscall.ISIG
	t.Cc[syscall.VMIN], t.Cc[syscall.VTIME] = 1, 0
	setTermios(fd, &t)
	return &old, nil
}

func setTermios(fd int, t *syscall.Termios) {
	syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCSETS, uintptr(unsafe.Pointer(t)))
}

func flushInput(fd int) {
	const tcflsh, tciflush = 0x540B, 0
	syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), tcflsh, tciflush)
}
