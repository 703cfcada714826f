// Package gptr reads the address of the running goroutine's runtime g, for the
// forked-child repair in pyext/fork.go (the only user). No cgo: a package that
// uses cgo cannot hold Go assembly.
package gptr

import "unsafe"

// Current returns the address of the calling goroutine's runtime g.
func Current() unsafe.Pointer
