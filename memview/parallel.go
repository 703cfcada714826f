package memview

import (
	"runtime"
	"sync/atomic"
)

// maxWorkers is the most goroutines one copy is split over; 0 means
// GOMAXPROCS.
var maxWorkers atomic.Int64

// SetParallelism sets the most goroutines one copy or fill may be split over
// and returns the previous setting. n <= 0 means GOMAXPROCS, the default. With
// 1, every copy runs on the calling goroutine alone and never waits for
// another one — what a process forked from a Go program needs, since the
// child has no thread but the one that called fork.
func SetParallelism(n int) int {
	return int(maxWorkers.Swap(int64(max(n, 0))))
}

// parallelism is the number of goroutines a large copy may use.
func parallelism() int {
	if n := int(maxWorkers.Load()); n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}
