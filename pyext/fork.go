package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/memview/memview/memview"
	"github.com/memview/memview/pyext/forkgate"
)

// Fork safety.
//
// fork() copies only the calling thread. Go's other threads — the collector's
// workers, the scheduler's idle threads, sysmon — do not exist in the child,
// but the runtime's state still names them: in a child, anything that waits
// for another thread waits forever (a collection, a copy split over
// goroutines), and a lock another thread held at the fork stays held.
//
// So memview brackets every fork (pthread_atfork, fork.c):
//   - prepare, in the parent: close the gate that Go work running without the
//     GIL passes through (package forkgate) and wait for the work in flight
//     (the forking thread holds the GIL, so no other Go work can be running);
//     turn the collector off, which waits for a collection in progress.
//   - parent: turn the collector back on and open the gate.
//   - child: the collector stays off (Go's bookkeeping memory then grows until
//     the child exits; array memory is freed as usual), copies run on the
//     calling thread alone, CUDA is refused (cuda.AfterFork), the gate starts
//     afresh. What needs no other thread keeps working: allocation, copies,
//     fills, views, every export.
//
// If work in flight does not finish within forkWait, the child is told that Go
// cannot be used at all (mvgo_fork_prepare returns 0): the C layer then
// refuses every operation that needs Go with a RuntimeError naming the spawn
// and forkserver start methods, and never calls into Go again.

// forkWait bounds how long a fork waits for Go work running in other threads:
// 2 s, or MEMVIEW_FORK_WAIT_MS milliseconds.
var forkWait = func() time.Duration {
	if ms, err := strconv.Atoi(os.Getenv("MEMVIEW_FORK_WAIT_MS")); err == nil && ms >= 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return 2 * time.Second
}()

// saved is the collector's setting before the fork, restored in the parent.
var saved struct {
	gcPercent int
	memLimit  int64
}

//export mvgo_fork_prepare
func mvgo_fork_prepare() (ok C.int) {
	defer func() {
		if recover() != nil {
			ok = 0
		}
	}()
	idle := forkgate.Close(forkWait)
	saved.gcPercent = debug.SetGCPercent(-1) // waits for a collection in progress
	saved.memLimit = debug.SetMemoryLimit(math.MaxInt64)
	return C.int(cbool(idle))
}

//export mvgo_fork_parent
func mvgo_fork_parent() {
	defer func() { _ = recover() }()
	debug.SetMemoryLimit(saved.memLimit)
	debug.SetGCPercent(saved.gcPercent)
	forkgate.Open()
}

//export mvgo_fork_child
func mvgo_fork_child() {
	defer func() { _ = recover() }()
	// The collector stays off: it needs threads the child does not have.
	memview.SetParallelism(1)
	// Work that was in flight in other threads is gone with them.
	forkgate.Reset()
}
