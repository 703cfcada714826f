//go:build !amd64

// Package gptr reads the addresses of the running goroutine's runtime g and of the
// runtime's scheduler state, for the fork safeguards in pyext/fork.go (the only user).
package gptr

import "unsafe"

// Current returns nil where memview does not read the runtime's g: the
// forked-child repair of pyext/fork.go is then off.
func Current() unsafe.Pointer { return nil }

// Sched returns nil where memview does not read the runtime's scheduler state:
// the fork safeguards that use it are then off.
func Sched() unsafe.Pointer { return nil }
