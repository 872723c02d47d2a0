//go:build !unix

package ptywright_test

// runNofileChild: RLIMIT_NOFILE is a Unix limit.
func runNofileChild() int { return 2 }
