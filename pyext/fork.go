package pyext

/*
#include <stdint.h>
#include "bridge.h"
void mv_fork_set_status_word(uintptr_t addr);
void mv_fork_set_own_p_word(uintptr_t addr);
#include <stddef.h>
void mv_fork_set_sched_words(uintptr_t lock, uintptr_t spinning, uintptr_t idle, int idle_want, uintptr_t heap);
void *mv_fork_data_segment(uintptr_t addr, size_t *size);
*/
import "C"

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	// The fork gate's C (gate.c), which pyext's C calls around Go work that
	// runs without the GIL, and which fork.c closes before a fork.
	_ "github.com/memview/memview/pyext/forkgate"

	"github.com/memview/memview/pyext/gptr"
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
// One race is the runtime's own. While the forking thread is back in C (in a
// "system call", holding its P), Go 1.26's sysmon visits that P on every pass
// (every 20 µs to 10 ms) and holds the goroutine's scan bit for a moment
// (setBlockOnExitSyscall), so that the goroutine cannot leave the system call
// meanwhile. A fork at that moment copies the bit set, no thread in the child
// ever clears it, and the child's first call into Go spins forever in
// exitsyscall. So prepare hands fork.c the address of this goroutine's status
// word, and the child handler, before anything enters Go, clears the scan bit
// if it finds it set: sysmon is not in the child, and the end of its visit
// (clearing the bit) is all that is missing. If the visit had gone as far as
// taking the P, the child takes an idle one, as after any retake. The word's
// offset in the runtime's g comes from the toolchain's own DWARF at build time
// (tools/goffsets, linked in as runtimeOffsets) and is checked here at every
// fork: the word must read _Grunning (2) while this goroutine runs, and fork.c
// checks that it reads _Gsyscall or _Gdeadextra (with or without the scan bit)
// once the thread is back in C; otherwise the repair is off.
//
// A lock another thread held at the fork is the other way a child hangs: if the
// child's P was taken meanwhile, its first call into Go waits for the
// scheduler's lock (sched.lock) to get another. Other threads take that lock
// as they wind down: those that ran Go work just before the fork (a parallel
// copy's helpers), and those woken by the preparation itself (stopping and
// starting the world, the pass through the scheduler). Any goroutine still
// running elsewhere (the collector's background sweeper or the scavenger
// finishing their work, a bound Go package's own goroutine) may hold another
// runtime lock, the heap's above all, which the child needs for its next span
// of memory. So, back in C, prepare waits (up to 50 ms, typically tens of
// microseconds) until the runtime is seen quiet three times in a row: the
// scheduler's lock free, no thread spinning, and — in the process memview was
// loaded in — every P but this thread's idle and this thread still holding its
// own, so that no goroutine runs anywhere and no lock is held but, for a
// moment, sysmon's; and the heap's lock free as well. The last condition
// matters beside a goroutine that was waiting to run: the monitor may take
// this thread's P, idle in C, to run it, and then the P the goroutine left
// counts as idle instead, so the idle count alone would say quiet. The thread
// sees that its M no longer names a P (m.p, cleared when the P is taken) and
// enters Go once more to get one (mvgo_fork_reacquire). In a forked child
// that forks again, Ps that threads of its own parent held are never idle, so
// there the idle count is not looked at. The offsets come from the same DWARF
// reading; the scheduler's address from package gptr.
//
// The heap's lock: the runtime lets only a few of its symbols be referenced
// from outside, and its heap (runtime.mheap_) is not one of them, so memview
// finds it by a property no other word has: the heap's page allocator holds a
// pointer back to the heap's lock (pageAlloc.mheapLock), at a distance the
// DWARF reading gives, and exactly one word in the writable segment that holds
// runtime.sched points back that distance to itself (gptr.FindBackRef, whose
// test checks the result against the symbol table of a real binary). When that
// is not exactly one word, the heap's lock is not looked at.
//
// The fork itself takes a fraction of a millisecond, during which the other
// threads run on, so the child handler looks at what the fork left before
// anything enters Go, and refuses Go work with the RuntimeError below instead
// of waiting forever when:
//   - the scheduler's lock or the heap's was held at the fork (sysmon takes the
//     scheduler's for a moment on each visit; a goroutine woken during the fork
//     may be taking a span);
//   - the wait never saw the runtime quiet: a goroutine kept running through
//     all of it (a bound package's goroutine that never blocks), and at the
//     fork it may hold any runtime lock, one memview cannot see among them (the
//     heap's bitmap arenas');
//   - the monitor took this thread's P during the fork and a goroutine was
//     running on it.
// A P busy at the fork although the wait saw every other one idle is recorded
// (for the test build) but not refused: beside a worker woken by a 1 ms ticker
// that is one fork in six, and the locks a goroutine starting then takes that
// the child needs are the two checked. README's "Fork" section gives the
// measured rates.
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

// runtimeOffsets is "status,lock,spinning,idle,heapBack,heapLock,gm,mp": the
// offsets of atomicstatus in the runtime's g, and of the key of the scheduler's
// lock, of its count of spinning threads and of its count of idle Ps in the
// runtime's schedt; then the distance from the heap's lock to the page
// allocator's pointer back to it, and the offset of the key of the heap's lock
// in the heap; then the offsets of a goroutine's thread in the runtime's g and
// of the thread's P in the runtime's m (internal/rtlayout). Set at link time (-X) by the build from tools/goffsets;
// empty when unknown.
var runtimeOffsets string

// runtimeOffset returns the i-th offset of runtimeOffsets, or -1.
func runtimeOffset(i int) int {
	parts := strings.Split(runtimeOffsets, ",")
	if i >= len(parts) {
		return -1
	}
	off, err := strconv.Atoi(parts[i])
	if err != nil || off < 0 || off > 1<<20 {
		return -1
	}
	return off
}

// statusWord returns the address of the calling goroutine's status word, or 0
// when it is unknown or does not read _Grunning (2) now. It is read here, in
// Go: through a call into C the goroutine would read _Gsyscall.
func statusWord() uintptr {
	off := runtimeOffset(0)
	g := gptr.Current()
	if off <= 0 || off%4 != 0 || g == nil {
		return 0
	}
	word := (*uint32)(unsafe.Add(g, off))
	if atomic.LoadUint32(word) != 2 { // _Grunning
		return 0
	}
	return uintptr(unsafe.Pointer(word))
}

// ownPWord returns the address of the word that names the P of the calling
// goroutine's thread (m.p), or 0 when it is unknown or does not name one now.
// Back in C, the thread keeps its P in that word until the monitor takes the P
// away (and clears it) to run other goroutines.
func ownPWord() uintptr {
	gm, mp := runtimeOffset(6), runtimeOffset(7)
	g := gptr.Current()
	if gm <= 0 || gm%8 != 0 || mp <= 0 || mp%8 != 0 || g == nil {
		return 0
	}
	m := *(*unsafe.Pointer)(unsafe.Add(g, gm))
	if m == nil {
		return 0
	}
	word := (*uintptr)(unsafe.Add(m, mp))
	if atomic.LoadUintptr(word) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(word))
}

// runtimeWords are the addresses of the runtime's words that say whether it is
// quiet: the scheduler's lock word and its counts of spinning threads and of
// idle Ps. A zero address is unknown.
type runtimeWords struct {
	lock, spinning, idle uintptr
}

// schedWords returns the runtime's words, or zeros when unknown or implausible
// now (the counts must lie between 0 and GOMAXPROCS).
func schedWords() (w runtimeWords) {
	lockOff, spinOff, idleOff := runtimeOffset(1), runtimeOffset(2), runtimeOffset(3)
	sched := gptr.Sched()
	if lockOff < 0 || lockOff%8 != 0 || spinOff <= 0 || spinOff%4 != 0 || sched == nil {
		return w
	}
	procs := runtime.GOMAXPROCS(0)
	if n := atomic.LoadInt32((*int32)(unsafe.Add(sched, spinOff))); n < 0 || int(n) > procs {
		return w
	}
	w.lock, w.spinning = uintptr(unsafe.Add(sched, lockOff)), uintptr(unsafe.Add(sched, spinOff))
	if idleOff > 0 && idleOff%4 == 0 {
		if n := atomic.LoadInt32((*int32)(unsafe.Add(sched, idleOff))); n >= 0 && int(n) <= procs {
			w.idle = uintptr(unsafe.Add(sched, idleOff))
		}
	}
	return w
}

// mvgo_fork_repair_armed reports whether the forked-child repair would be armed
// for a fork now (the status word found and checked), for the test build.
//
//export mvgo_fork_repair_armed
func mvgo_fork_repair_armed() C.int {
	if statusWord() != 0 {
		return 1
	}
	return 0
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
		// Ps held at this process's own fork by threads it does not have are
		// never idle here: the idle count says nothing.
		setSchedWords(-1)
		return
	}
	saved.gcPercent = debug.SetGCPercent(-1) // waits for a collection in progress
	saved.memLimit = debug.SetMemoryLimit(math.MaxInt64)
	saved.defaultMax = os.Getenv("GOMAXPROCS") == ""
	saved.maxProcs = runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 2)
	// Quiet means every P but this thread's idle: no goroutine runs anywhere.
	setSchedWords(runtime.GOMAXPROCS(0) - 1)
	C.mv_fork_set_status_word(C.uintptr_t(statusWord()))
	C.mv_fork_set_own_p_word(C.uintptr_t(ownPWord()))
	// Last, pass through the scheduler once. A thread that calls into Go from
	// C runs the same goroutine every time, so its P's scheduling tick never
	// moves, and the scheduler takes the P away as soon as the thread is back
	// in C, as from a goroutine that ran too long. With a fresh tick and idle
	// Ps about, it leaves the P alone for the next 10 ms: the fork happens with
	// the scheduler quiet, and the child finds its P as this thread left it.
	runtime.Gosched()
}

// mvgo_fork_reacquire is called by fork.c's wait when the monitor took this
// thread's P while it waited in C: entering Go gives the thread a P again, and
// the pass through the scheduler a fresh tick, as in mvgo_fork_prepare.
//
//export mvgo_fork_reacquire
func mvgo_fork_reacquire() {
	defer func() { _ = recover() }()
	C.mv_fork_set_status_word(C.uintptr_t(statusWord()))
	C.mv_fork_set_own_p_word(C.uintptr_t(ownPWord()))
	runtime.Gosched()
}

// setSchedWords hands fork.c the runtime's words and the count of idle Ps that
// means quiet (-1: the idle count is not looked at).
func setSchedWords(idleWant int) {
	w := schedWords()
	if idleWant < 0 {
		w.idle = 0
	}
	C.mv_fork_set_sched_words(C.uintptr_t(w.lock), C.uintptr_t(w.spinning), C.uintptr_t(w.idle),
		C.int(idleWant), C.uintptr_t(heapLockWord()))
}

// heapLock is the address of the heap's lock word, found once (0: not found).
var heapLock struct {
	looked bool
	word   uintptr
}

// heapLockWord returns the address of the key of the runtime's heap lock, or 0
// when it cannot be found (see the comment at the top). Called with the GIL
// held, by one thread at a time.
func heapLockWord() uintptr {
	if !heapLock.looked {
		heapLock.looked = true
		heapLock.word = findHeapLock()
	}
	return heapLock.word
}

func findHeapLock() uintptr {
	back, key := runtimeOffset(4), runtimeOffset(5)
	sched := gptr.Sched()
	if back <= 0 || back%8 != 0 || key < 0 || key%8 != 0 || sched == nil {
		return 0
	}
	var size C.size_t
	seg := C.mv_fork_data_segment(C.uintptr_t(uintptr(sched)), &size)
	heap := gptr.FindBackRef(seg, uintptr(size), uintptr(back))
	if heap == nil {
		return 0
	}
	return uintptr(unsafe.Add(heap, key))
}

// mvgo_fork_heap_lock_known reports whether the heap's lock word is known, for
// the test build.
//
//export mvgo_fork_heap_lock_known
func mvgo_fork_heap_lock_known() C.int {
	if heapLockWord() != 0 {
		return 1
	}
	return 0
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
