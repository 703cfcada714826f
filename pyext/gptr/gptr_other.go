//go:build !amd64

// Package gptr reads the address of the running goroutine's runtime g, for the
// forked-child repair in pyext/fork.go (the only user).
package gptr

import "unsafe"

// Current returns nil where memview does not read the runtime's g: the
// forked-child repair of pyext/fork.go is then off.
func Current() unsafe.Pointer { return nil }
