package memview

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"
)

var _ Allocator = (*GoAllocator)(nil)

// GoAllocator allocates from the Go heap. Each allocation over-allocates by 64
// bytes, is aligned to 64 bytes inside that block and is pinned with
// runtime.Pinner from Allocate until Free.
//
// Running out of Go heap is a fatal error of the Go runtime, not an error
// Allocate could return, so GoAllocator is not a backend NewAllocator offers
// by name (nor MEMVIEW_DEFAULT_POOL): it is for Go programs that want their
// buffers in the Go heap, and it serves HostAllocator's small sizes where
// there is no SlabAllocator (systems other than Linux).
//
// The Go collector does not move heap objects today, but only pinned memory
// may be stored in C memory under cgocheck2, and pinning states the rule
// instead of relying on an implementation detail. The allocator keeps the
// original block and its pinner in a map keyed by the aligned address, so the
// block stays reachable (and is never collected) for as long as C may hold it.
//
// Small allocations (up to goCacheMaxSize) are rounded up to a size class
// (64·2^k or 96·2^k bytes), and freed blocks of those classes are kept (unpinned,
// pinned again when handed out) for reuse — up to goCacheLimit bytes in all. Reuse clears the bytes
// handed out, so memory is still zero-filled; it spares the collector and the
// pinner the churn of short-lived arrays (NumPy keeps a small-block cache for
// the same reason).
//
// The zero value is ready to use; a GoAllocator must not be copied after
// first use.
type GoAllocator struct {
	mu     sync.Mutex
	live   map[uintptr]goBlock
	free   map[int][]goBlock // size class -> freed blocks kept for reuse
	cached int               // bytes held in free
}

const (
	// goCacheMaxSize is the largest allocation rounded to a size class and cached.
	goCacheMaxSize = 1 << 20
	// goCacheLimit bounds the bytes of freed blocks kept for reuse.
	goCacheLimit = 32 << 20
)

// goBlock is one allocation: the whole over-allocated block, its pinner and
// its size class (0 for an uncached size).
type goBlock struct {
	raw    []byte
	pinner *runtime.Pinner
	class  int
}

// sizeClass rounds size up to 64·2^k or 96·2^k bytes (at most a third wasted).
func sizeClass(size int) int {
	for c := alignment; ; c *= 2 {
		if c >= size {
			return c
		}
		if c*3/2 >= size {
			return c * 3 / 2
		}
	}
}

// Name returns "go".
func (a *GoAllocator) Name() string { return "go" }

// Allocate returns size zero bytes from the Go heap, 64-byte aligned and pinned.
func (a *GoAllocator) Allocate(size int) (b []byte, err error) {
	if size < 0 {
		return nil, fmt.Errorf("memview: go allocator: negative size %d: %w", size, ErrInvalid)
	}
	if size > math.MaxInt-alignment {
		return nil, fmt.Errorf("memview: go allocator: size %d overflows: %w", size, ErrNoMemory)
	}
	class, n := 0, size
	if size <= goCacheMaxSize {
		class = sizeClass(size)
		n = class
		if b, ok := a.reuse(class, size); ok {
			return b, nil
		}
	}
	raw, err := makeBlock(n + alignment)
	if err != nil {
		return nil, err
	}
	blk := goBlock{raw: raw, pinner: new(runtime.Pinner), class: class}
	blk.pinner.Pin(&raw[0])
	// unsafe.Slice keeps the aligned address even for size 0; raw[shift:shift]
	// would not (a zero-capacity reslice keeps the base pointer).
	b = unsafe.Slice(&raw[blk.shift()], size)
	a.track(b, blk)
	return b, nil
}

// shift is the offset of the first 64-byte aligned byte of the block.
func (blk goBlock) shift() int {
	return int((alignment - uintptr(unsafe.Pointer(&blk.raw[0]))%alignment) % alignment)
}

// reuse hands out a cached block of the class, pinned, cleared and tracked,
// under one lock.
func (a *GoAllocator) reuse(class, size int) ([]byte, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	list := a.free[class]
	if len(list) == 0 {
		return nil, false
	}
	blk := list[len(list)-1]
	list[len(list)-1] = goBlock{}
	a.free[class] = list[:len(list)-1]
	a.cached -= class
	blk.pinner.Pin(&blk.raw[0])
	b := unsafe.Slice(&blk.raw[blk.shift()], size)
	clear(b)
	a.live[sliceAddr(b)] = blk
	return b, true
}

// track records a live allocation under its aligned address.
func (a *GoAllocator) track(b []byte, blk goBlock) {
	a.mu.Lock()
	if a.live == nil {
		a.live = make(map[uintptr]goBlock)
	}
	a.live[sliceAddr(b)] = blk
	a.mu.Unlock()
}

// makeBlock allocates n bytes, turning the runtime's "len out of range" panic
// into ErrNoMemory. (A genuine out-of-memory in the Go heap is fatal and cannot
// be caught; large sizes should go to the mmap allocator.)
func makeBlock(n int) (raw []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			raw, err = nil, fmt.Errorf("memview: go allocator: cannot allocate %d bytes (%v): %w", n, r, ErrNoMemory)
		}
	}()
	return make([]byte, n), nil
}

// Free takes back the allocation starting at b's first byte: a small block is
// kept for reuse while the cache has room; any other is unpinned and left to
// the Go collector.
func (a *GoAllocator) Free(b []byte) error {
	if !a.tryFree(b) {
		return fmt.Errorf("memview: go allocator: free of unknown slice at %#x: %w", sliceAddr(b), ErrInvalid)
	}
	return nil
}

// tryFree frees b if it is a live allocation of a and reports whether it was.
func (a *GoAllocator) tryFree(b []byte) bool {
	key := sliceAddr(b)
	a.mu.Lock()
	defer a.mu.Unlock()
	blk, ok := a.live[key]
	if !ok {
		return false
	}
	delete(a.live, key)
	// Unpin even a block kept for reuse: a cached block is plain Go memory that
	// nothing outside the allocator can see, and a dropped allocator must not
	// leave pins behind.
	blk.pinner.Unpin()
	if blk.class > 0 && a.cached+blk.class <= goCacheLimit {
		if a.free == nil {
			a.free = make(map[int][]goBlock)
		}
		a.free[blk.class] = append(a.free[blk.class], blk)
		a.cached += blk.class
	}
	return true
}

// owns reports whether b starts a live allocation of a.
//
//lint:ignore U1000 used by MmapAllocator where there is no mmap (mmap_allocator_other.go)
func (a *GoAllocator) owns(b []byte) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.live[sliceAddr(b)]
	return ok
}

// sliceAddr is the address of b's first byte (0 for a nil slice).
func sliceAddr(b []byte) uintptr {
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}
