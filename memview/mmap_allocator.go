//go:build unix

package memview

import (
	"fmt"
	"os"
	"sync"
	"unsafe"
)

var _ Reallocator = (*MmapAllocator)(nil)

// MmapAllocator maps anonymous private memory for each allocation and unmaps
// it on Free.
//
// The memory is outside the Go heap, so it never moves, is never scanned or
// collected, and may be stored in C freely. The kernel zero-fills pages lazily
// on first touch, so allocating a large buffer costs one system call whatever
// its size (this is what makes a 256 MiB `empty` O(1)). Allocations are page
// aligned, hence 64-byte aligned. Size 0 maps one page so the returned
// zero-length slice still has a valid, unique address. On Linux, mappings of 4
// MiB and more are advised to use transparent huge pages (as NumPy does), and
// Reallocate moves a mapping with mremap instead of copying it.
//
// The zero value is ready to use; an MmapAllocator must not be copied after
// first use.
type MmapAllocator struct {
	mu   sync.Mutex
	live map[uintptr][]byte // aligned address -> the whole mapping
}

// Name returns "mmap".
func (a *MmapAllocator) Name() string { return "mmap" }

// Allocate maps size zero bytes of anonymous memory.
func (a *MmapAllocator) Allocate(size int) ([]byte, error) {
	if size < 0 {
		return nil, fmt.Errorf("memview: mmap allocator: negative size %d: %w", size, ErrInvalid)
	}
	m, err := sysMap(mapLen(size))
	if err != nil {
		return nil, fmt.Errorf("memview: mmap allocator: %w", err) // the error names the size
	}
	adviseHuge(m)
	return a.track(m, size), nil
}

// mapLen is the length of the mapping for size bytes: one page for size 0.
func mapLen(size int) int {
	if size == 0 {
		return os.Getpagesize()
	}
	return size
}

// track records mapping m and returns its first size bytes.
func (a *MmapAllocator) track(m []byte, size int) []byte {
	// unsafe.Slice keeps the mapping's address for size 0 as well.
	b := unsafe.Slice(&m[0], size)
	a.mu.Lock()
	if a.live == nil {
		a.live = make(map[uintptr][]byte)
	}
	a.live[sliceAddr(b)] = m
	a.mu.Unlock()
	return b
}

// untrack forgets the mapping that starts at b's first byte and returns it.
func (a *MmapAllocator) untrack(b []byte) ([]byte, bool) {
	key := sliceAddr(b)
	a.mu.Lock()
	defer a.mu.Unlock()
	m, ok := a.live[key]
	if ok {
		delete(a.live, key)
	}
	return m, ok
}

// Free unmaps the allocation starting at b's first byte.
func (a *MmapAllocator) Free(b []byte) error {
	m, ok := a.untrack(b)
	if !ok {
		return fmt.Errorf("memview: mmap allocator: free of unknown slice at %#x: %w", sliceAddr(b), ErrInvalid)
	}
	if err := sysUnmap(m); err != nil {
		return fmt.Errorf("memview: mmap allocator: munmap of %d bytes at %#x (%v): %w", len(m), sliceAddr(b), err, ErrInvalid)
	}
	return nil
}

// Reallocate resizes the allocation starting at b's first byte to size bytes
// (see Pool.Reallocate): on Linux by moving the mapping with mremap, which
// keeps its pages instead of copying them; elsewhere by a new mapping and a
// copy.
func (a *MmapAllocator) Reallocate(b []byte, size int) ([]byte, error) {
	if size < 0 {
		return nil, fmt.Errorf("memview: mmap allocator: reallocate to negative size %d: %w", size, ErrInvalid)
	}
	if !canRemap {
		return reallocateByCopy(a, b, size)
	}
	m, ok := a.untrack(b)
	if !ok {
		return nil, fmt.Errorf("memview: mmap allocator: reallocate of unknown slice at %#x: %w", sliceAddr(b), ErrInvalid)
	}
	nm, err := sysRemap(m, mapLen(size))
	if err != nil {
		a.track(m, len(b))
		return nil, fmt.Errorf("memview: mmap allocator: %w", err)
	}
	if size < len(b) {
		// Bytes given up but kept in the last page (which stays mapped to
		// its end) are zeroed, as new memory is.
		clear(unsafe.Slice(&nm[0], pageRoundUp(len(nm)))[size:min(len(b), pageRoundUp(len(nm)))])
	}
	adviseHuge(nm)
	return a.track(nm, size), nil
}

// pageRoundUp rounds n up to a multiple of the page size.
func pageRoundUp(n int) int {
	ps := os.Getpagesize()
	return (n + ps - 1) / ps * ps
}

// owns reports whether b starts a live allocation of a.
func (a *MmapAllocator) owns(b []byte) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.live[sliceAddr(b)]
	return ok
}
