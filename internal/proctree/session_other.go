//go:build !linux

package proctree

// KillSession is Linux-only (it reads /proc); elsewhere Close relies
// on the process-group kill alone.
func KillSession(sid int) {}
