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
// The Go collector does not move heap objects today, but only pinned memory
// may be stored in C memory under cgocheck2, and pinning states the rule
// instead of relying on an implementation detail. The allocator keeps the
// original block and its pinner in a map keyed by the aligned address, so the
// block stays reachable (and is never collected) for as long as C may hold it.
//
// The zero value is ready to use; a GoAllocator must not be copied after
// first use.
type GoAllocator struct {
	mu   sync.Mutex
	live map[uintptr]goBlock
}

// goBlock is one live allocation: the whole over-allocated block and its pinner.
type goBlock struct {
	raw    []byte
	pinner *runtime.Pinner
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
	raw, err := makeBlock(size + alignment)
	if err != nil {
		return nil, err
	}
	shift := int((alignment - uintptr(unsafe.Pointer(&raw[0]))%alignment) % alignment)
	// unsafe.Slice keeps the aligned address even for size 0; raw[shift:shift]
	// would not (a zero-capacity reslice keeps the base pointer).
	b = unsafe.Slice(&raw[shift], size)
	p := new(runtime.Pinner)
	p.Pin(&raw[0])
	a.mu.Lock()
	if a.live == nil {
		a.live = make(map[uintptr]goBlock)
	}
	a.live[uintptr(unsafe.Pointer(&raw[shift]))] = goBlock{raw: raw, pinner: p}
	a.mu.Unlock()
	return b, nil
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

// Free unpins the allocation starting at b's first byte and lets the Go
// collector reclaim it.
func (a *GoAllocator) Free(b []byte) error {
	key := sliceAddr(b)
	a.mu.Lock()
	blk, ok := a.live[key]
	if ok {
		delete(a.live, key)
	}
	a.mu.Unlock()
	if !ok {
		return fmt.Errorf("memview: go allocator: free of unknown slice at %#x: %w", key, ErrInvalid)
	}
	blk.pinner.Unpin()
	return nil
}

// owns reports whether b starts a live allocation of a.
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
