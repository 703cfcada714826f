// Package forkgate lets a fork wait for the Go work that runs without the GIL.
//
// A Python thread that holds the GIL cannot be in Go while another thread
// forks (the forking thread holds the GIL), but work that gave the GIL up —
// memview's long copies and fills, every function gopy binds — can be. Such
// work calls Enter first and Leave when done, before it takes the GIL again; memview's pthread_atfork prepare handler calls Close, which
// stops new work and waits for the work in flight (see pyext/fork.go for why
// a forked Go runtime needs this).
//
// It is a package of its own, not part of pyext, so that gopy (which binds
// pyext's exported names) does not see it while the code gopy generates can
// call it.
package forkgate

import (
	"sync/atomic"
	"time"
)

var (
	inflight atomic.Int64
	closed   atomic.Bool
)

// poll is how often a waiting side looks again.
const poll = 20 * time.Microsecond

// Pass is one piece of work's passage through the gate.
type Pass struct{ left bool }

// Enter marks the start of Go work running without the GIL. Leave the gate
// (pass.Leave) before the GIL is taken again; a deferred Leave as well covers
// a panic, since Leave counts once. While a fork is being prepared, Enter
// waits until it is done.
func Enter() Pass {
	for {
		inflight.Add(1)
		if !closed.Load() {
			return Pass{}
		}
		inflight.Add(-1)
		for closed.Load() {
			time.Sleep(poll)
		}
	}
}

// Leave marks the end of the work; calls after the first do nothing.
func (p *Pass) Leave() {
	if !p.left {
		p.left = true
		inflight.Add(-1)
	}
}

// Close stops new work and waits until none is in flight, for at most
// timeout; it reports whether none is. Open must follow.
func Close(timeout time.Duration) bool {
	closed.Store(true)
	deadline := time.Now().Add(timeout)
	for inflight.Load() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(poll)
	}
	return true
}

// Open lets work in again after Close.
func Open() { closed.Store(false) }

// Reset forgets the work in flight and opens the gate: in a forked child,
// whose other threads (and their work) are gone.
func Reset() {
	inflight.Store(0)
	closed.Store(false)
}
