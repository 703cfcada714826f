// Package gptr reads the addresses of the running goroutine's runtime g and of the
// runtime's scheduler state, for the fork safeguards in pyext/fork.go (the only
// user). No cgo: a package that uses cgo cannot hold Go assembly.
package gptr

import "unsafe"

// Current returns the address of the calling goroutine's runtime g.
func Current() unsafe.Pointer

// Sched returns the address of the runtime's scheduler state (runtime.sched).
func Sched() unsafe.Pointer
