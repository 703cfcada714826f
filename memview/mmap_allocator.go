//go:build unix

package memview

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

var _ Allocator = (*MmapAllocator)(nil)

// MmapAllocator maps anonymous private memory for each allocation and unmaps
// it on Free.
//
// The memory is outside the Go heap, so it never moves, is never scanned or
// collected, and may be stored in C freely. The kernel zero-fills pages lazily
// on first touch, so allocating a large buffer costs one system call whatever
// its size (this is what makes a 256 MiB `empty` O(1)). Allocations are page
// aligned, hence 64-byte aligned. Size 0 maps one page so the returned
// zero-length slice still has a valid, unique address. On Linux, mappings of 4
// MiB and more are advised to use transparent huge pages (as NumPy does).
//
// The zero value is ready to use; an MmapAllocator must not be copied after
// first use.
type MmapAllocator struct {
	mu   sync.Mutex
	live map[uintptr][]byte // aligned address -> the mapping as syscall.Mmap returned it
}

// Name returns "mmap".
func (a *MmapAllocator) Name() string { return "mmap" }

// Allocate maps size zero bytes of anonymous memory.
func (a *MmapAllocator) Allocate(size int) ([]byte, error) {
	if size < 0 {
		return nil, fmt.Errorf("memview: mmap allocator: negative size %d: %w", size, ErrInvalid)
	}
	n := size
	if n == 0 {
		n = os.Getpagesize()
	}
	if err := checkAddressSpace(n); err != nil {
		return nil, fmt.Errorf("memview: mmap allocator: %w", err)
	}
	m, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("memview: mmap allocator: cannot map %d bytes (%v): %w", size, err, ErrNoMemory)
	}
	adviseHuge(m)
	// unsafe.Slice keeps the mapping's address for size 0 as well.
	b := unsafe.Slice(&m[0], size)
	a.mu.Lock()
	if a.live == nil {
		a.live = make(map[uintptr][]byte)
	}
	a.live[sliceAddr(b)] = m
	a.mu.Unlock()
	return b, nil
}

// Free unmaps the allocation starting at b's first byte.
func (a *MmapAllocator) Free(b []byte) error {
	key := sliceAddr(b)
	a.mu.Lock()
	m, ok := a.live[key]
	if ok {
		delete(a.live, key)
	}
	a.mu.Unlock()
	if !ok {
		return fmt.Errorf("memview: mmap allocator: free of unknown slice at %#x: %w", key, ErrInvalid)
	}
	if err := syscall.Munmap(m); err != nil {
		return fmt.Errorf("memview: mmap allocator: munmap of %d bytes at %#x (%v): %w", len(m), key, err, ErrInvalid)
	}
	return nil
}

// owns reports whether b starts a live allocation of a.
func (a *MmapAllocator) owns(b []byte) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.live[sliceAddr(b)]
	return ok
}
