package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"math"
	"runtime"
	"runtime/debug"

	"github.com/memview/memview/memview"
	// The fork gate's C (gate.c), which pyext's C calls around Go work that
	// runs without the GIL, and which fork.c closes before a fork.
	_ "github.com/memview/memview/pyext/forkgate"
)

// Fork safety.
//
// fork() copies only the calling thread. Go's other threads — the collector's
// workers, the scheduler's idle threads, sysmon — do not exist in the child,
// but the runtime's state still names them: in a child, anything that waits
// for another thread waits forever (a collection, a copy split over
// goroutines, a P that another thread held), and a lock another thread held at
// the fork stays held.
//
// So memview brackets every fork (pthread_atfork, fork.c):
//   - prepare, in the parent: close the fork gate (package forkgate) that Go
//     work running without the GIL passes, and wait for the work in flight
//     (the forking thread holds the GIL, so no other Go work can be running;
//     threads that arrive meanwhile wait in C, holding no P); then turn the
//     collector off, which waits for a collection in progress
//     and stop the world once, which leaves every other P idle
//     (mvgo_fork_prepare). The forking thread comes back from Go last, so the
//     child finds the P it used, or an idle one.
//   - parent: turn the collector back on and open the gate.
//   - child: the collector stays off (Go's bookkeeping memory then grows until
//     the child exits; array memory is freed as usual), copies run on the
//     calling thread alone, CUDA is refused (package cuda does that itself),
//     the gate starts afresh. What needs no other thread keeps working:
//     allocation, copies, fills, views, every export.
//
// If work in flight does not finish within MEMVIEW_FORK_WAIT_MS (2 s by
// default), the child is told that Go cannot be used at all: the C layer then
// refuses every operation that needs Go with a RuntimeError naming the spawn
// and forkserver start methods, and never calls into Go again.

// saved is the collector's setting before the fork, restored in the parent.
var saved struct {
	gcPercent int
	memLimit  int64
}

//export mvgo_fork_prepare
func mvgo_fork_prepare() {
	defer func() { _ = recover() }()
	saved.gcPercent = debug.SetGCPercent(-1) // waits for a collection in progress
	saved.memLimit = debug.SetMemoryLimit(math.MaxInt64)
	// Threads that left Go for C (one waiting for the GIL, say) keep their P
	// until the scheduler takes it back, and in the child such a P is gone for
	// good. Stopping the world (which ReadMemStats does) takes every P back and
	// leaves the others idle when the world starts again: the child then finds
	// its own P, or an idle one, and the scheduler has no reason to take this
	// thread's P away while it forks.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
}

//export mvgo_fork_parent
func mvgo_fork_parent() {
	defer func() { _ = recover() }()
	debug.SetMemoryLimit(saved.memLimit)
	debug.SetGCPercent(saved.gcPercent)
}

//export mvgo_fork_child
func mvgo_fork_child() {
	defer func() { _ = recover() }()
	// The collector stays off: it needs threads the child does not have.
	memview.SetParallelism(1)
}
