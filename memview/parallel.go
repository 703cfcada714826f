package memview

import (
	"runtime"
	"sync/atomic"
	"syscall"
)

// maxWorkers is the most goroutines one copy is split over; 0 means
// GOMAXPROCS.
var maxWorkers atomic.Int64

// SetParallelism sets the most goroutines one copy or fill may be split over
// and returns the previous setting. n <= 0 means the default: GOMAXPROCS, or 1
// in a process forked from the one memview was loaded in (the child has no
// thread but the one that called fork, so a copy there runs on the calling
// goroutine alone and never waits for another one). With 1, every copy runs
// on the calling goroutine.
func SetParallelism(n int) int {
	return int(maxWorkers.Swap(int64(max(n, 0))))
}

// startPid is the process the package was loaded in.
var startPid = syscall.Getpid()

// parallelism is the number of goroutines a large copy may use: one in a
// process forked from the one memview was loaded in, where the Go runtime's
// other threads do not exist and a goroutine waiting for another would wait
// forever.
func parallelism() int {
	if n := int(maxWorkers.Load()); n > 0 {
		return n
	}
	if syscall.Getpid() != startPid {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}
