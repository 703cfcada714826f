// Package forkgate lets a fork wait for the Go work that runs without the GIL.
//
// A Python thread that holds the GIL cannot be in Go while another thread
// forks (the forking thread holds the GIL), but work that gave the GIL up —
// memview's long copies and fills, every function gopy binds — can be. Such
// work enters the gate first and leaves it before it takes the GIL again;
// memview's pthread_atfork prepare handler closes the gate, which stops new
// work and waits for the work in flight (see pyext/fork.go for why a forked
// Go runtime needs this).
//
// The gate is C (gate.c): a thread waiting at a closed gate waits outside Go,
// holding none of the Go runtime's Ps, so that the child of the fork finds one
// free. pyext's C calls gate.h directly; Go code calls Enter and Leave.
//
// It is a package of its own, not part of pyext, so that gopy (which binds
// pyext's exported names) does not see it while the code gopy generates can
// call it.
package forkgate

/*
#include "gate.h"
*/
import "C"

// Pass is one piece of work's passage through the gate.
type Pass struct{ left bool }

// Enter marks the start of Go work running without the GIL; while a fork is
// being prepared, it waits (in C) until the fork is done. Leave the gate
// (pass.Leave) before the GIL is taken again; a deferred Leave as well covers a
// panic, since Leave counts once.
func Enter() Pass {
	C.mv_gate_enter()
	return Pass{}
}

// Leave marks the end of the work; calls after the first do nothing.
func (p *Pass) Leave() {
	if !p.left {
		p.left = true
		C.mv_gate_leave()
	}
}
