package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"

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
// goroutines, a P another thread held), and a lock another thread held at the
// fork stays held.
//
// So memview brackets every fork (pthread_atfork, fork.c):
//   - prepare, in the parent: close the fork gate (package forkgate) that Go
//     work running without the GIL passes, and wait for the work in flight
//     (the forking thread holds the GIL, so no other Go work can be running;
//     threads that arrive meanwhile wait in C, holding no P). Then, in Go
//     (mvgo_fork_prepare): turn the collector off, which waits for a
//     collection in progress; raise GOMAXPROCS by two, which stops the world
//     and leaves every P but this thread's idle; and pass through the
//     scheduler once. With Ps idle and a fresh scheduling tick, the scheduler
//     leaves this thread's P alone for 10 ms (it takes one away only when no P
//     is idle, or from a thread that has run or waited longer), so the fork
//     happens with the scheduler quiet and the child finds its P where it left
//     it. The forking thread leaves Go last, just before the fork.
//   - parent: GOMAXPROCS and the collector as they were; open the gate.
//   - child: nothing enters Go (a child that only execs never does). The
//     collector stays off, as the parent left it for the fork (Go's
//     bookkeeping memory then grows until the child exits; array memory is
//     freed as usual); copies run on the calling goroutine (memview notices
//     the new process itself); CUDA is refused (package cuda notices itself);
//     the gate starts afresh. What needs no other thread keeps working:
//     allocation, copies, fills, views, every export.
//
// If work in flight does not finish within MEMVIEW_FORK_WAIT_MS (2 s by
// default), the child is told that Go cannot be used at all: the C layer then
// refuses every operation that needs Go with a RuntimeError naming the spawn
// and forkserver start methods, and never calls into Go again.

// saved is what the fork changed, restored in the parent.
var saved struct {
	gcPercent  int
	memLimit   int64
	maxProcs   int
	defaultMax bool // GOMAXPROCS was the runtime's own choice (no GOMAXPROCS variable)
}

// startPid is the process the extension was loaded in. A process forked from
// it forks again (a grandchild) without stopping the world: its Ps that other
// threads held at its own fork would never stop. There the collector is off
// already and GOMAXPROCS was raised by the first fork.
var startPid = syscall.Getpid()

//export mvgo_fork_prepare
func mvgo_fork_prepare() {
	defer func() { _ = recover() }()
	if syscall.Getpid() != startPid {
		return
	}
	saved.gcPercent = debug.SetGCPercent(-1) // waits for a collection in progress
	saved.memLimit = debug.SetMemoryLimit(math.MaxInt64)
	saved.defaultMax = os.Getenv("GOMAXPROCS") == ""
	saved.maxProcs = runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 2)
	// Last, pass through the scheduler once. A thread that calls into Go from
	// C runs the same goroutine every time, so its P's scheduling tick never
	// moves, and the scheduler takes the P away as soon as the thread is back
	// in C, as from a goroutine that ran too long. With a fresh tick and idle
	// Ps about, it leaves the P alone for the next 10 ms: the fork happens with
	// the scheduler quiet, and the child finds its P as this thread left it.
	runtime.Gosched()
}

//export mvgo_fork_parent
func mvgo_fork_parent() {
	defer func() { _ = recover() }()
	if syscall.Getpid() != startPid {
		return
	}
	if saved.defaultMax {
		runtime.SetDefaultGOMAXPROCS() // and the runtime's updates of it, as before
	} else {
		runtime.GOMAXPROCS(saved.maxProcs)
	}
	debug.SetMemoryLimit(saved.memLimit)
	debug.SetGCPercent(saved.gcPercent)
}
