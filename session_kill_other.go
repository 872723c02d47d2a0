//go:build !linux

package ptywright

// killSessionMembers is Linux-only (it reads /proc); elsewhere Close relies
// on the process-group kill alone.
func killSessionMembers(sid int) {}
