// Command goffsets prints byte offsets inside the runtime's structures for the Go
// toolchain that builds it, read from its own DWARF, as one comma-separated line:
//
//	g.atomicstatus,schedt.lock+mutex.key,schedt.nmspinning,schedt.npidle,
//	mheap.pages+pageAlloc.mheapLock-mheap.lock,mheap.lock+mutex.key,g.m,m.p
//
// The extension's build links the line in (pyext's runtimeOffsets), and
// pyext/fork.go uses the numbers, after checking them at run time, to make a fork
// safe: the goroutine status word for the forked-child repair; the scheduler's
// lock and its counts of spinning threads and idle Ps to fork only when the
// runtime is quiet; the heap's lock, found through the pointer back to it that
// the heap's page allocator holds, to fork only when it is free; the forking
// thread's P, to fork only while the thread still holds it (see
// pyext/fork.go and package internal/rtlayout). Build it without -s/-w; prints
// nothing and exits 1 when a field cannot be found.
package main

import (
	"fmt"
	"os"

	"github.com/memview/memview/internal/rtlayout"
)

func main() {
	d, err := rtlayout.OwnDWARF()
	if err == nil {
		var o rtlayout.Offsets
		if o, err = rtlayout.Read(d); err == nil {
			fmt.Println(o)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "goffsets:", err)
	os.Exit(1)
}
