// Package rocases has one function for each case the read-only and
// blocking analyses (readonly.go, blocking.go) decide.
package rocases

import (
	"sync"
	"unsafe"
)

func Sum(b []byte) (s int) {
	for _, c := range b {
		s += int(c)
	}
	return s
}

func Store(b []byte) { b[0] = 1 }

func StoreUnsafe(b []byte) { *(*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), 1)) = 2 }

func StoreCallee(b []byte) { set(b[1:]) }

func set(b []byte) { b[0] = 3 }

func Append(b []byte) []byte { return append(b[:0], 4) }

func Copy(b []byte) int { return copy(b, "x") }

func Closure(b []byte) {
	f := func() { b[0] = 5 }
	f()
}

func Returned(b []byte) []byte { return b[1:] }

func ThroughReturn(b []byte) { Returned(b)[0] = 6 }

var kept []byte

func Kept(b []byte) { kept = b }

type header struct {
	p unsafe.Pointer
	n int
}

func ViaHeader(b []byte) byte { return *(*byte)((*header)(unsafe.Pointer(&b)).p) }

func StoreViaHeader(b []byte) { *(*byte)((*header)(unsafe.Pointer(&b)).p) = 7 }

var mu sync.Mutex

func Locked(b []byte) int {
	mu.Lock()
	defer mu.Unlock()
	return len(b)
}

func Chan(b []byte) int {
	c := make(chan int, 1)
	c <- len(b)
	return <-c
}
