//go:build !unix

package ptyio

import "os"

// Drain reads f once: elsewhere than Unix there is no poller to drain by.
func Drain(f *os.File, buf []byte, _ <-chan struct{}) (int, error) { return f.Read(buf) }
