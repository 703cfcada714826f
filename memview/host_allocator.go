package memview

import "fmt"

var (
	_ Reallocator     = (*HostAllocator)(nil)
	_ UninitAllocator = (*HostAllocator)(nil)
)

// hostMmapThreshold is the size from which HostAllocator maps memory of its own
// for each allocation instead of serving it from a slab.
const hostMmapThreshold = 1 << 20

// HostAllocator is the default backend: sizes below 1 MiB come from a
// SlabAllocator (small blocks carved from mapped slabs and reused at once),
// sizes from 1 MiB up from an MmapAllocator (a mapping each).
//
// None of its memory is on the Go heap (on Linux; elsewhere small blocks are
// pinned Go memory): it never moves, adds nothing to the collector's work,
// and running out of it is ErrNoMemory — a MemoryError in Python — never the
// Go runtime's fatal error. Large buffers go back to the system at once on
// Free and are zero-filled lazily by the kernel, so allocating one is O(1) in
// its size.
//
// The zero value is ready to use; a HostAllocator must not be copied after
// first use.
type HostAllocator struct {
	small smallAllocator
	large MmapAllocator
}

// Name returns "host".
func (a *HostAllocator) Name() string { return "host" }

// Allocate returns size zero bytes, 64-byte aligned, from a slab or from mmap.
func (a *HostAllocator) Allocate(size int) ([]byte, error) {
	if size < 0 {
		return nil, fmt.Errorf("memview: host allocator: negative size %d: %w", size, ErrInvalid)
	}
	if size < hostMmapThreshold {
		return a.small.Allocate(size)
	}
	return a.large.Allocate(size)
}

// AllocateUninit is Allocate without clearing a reused slab block
// (UninitAllocator); mappings come zero-filled anyway.
func (a *HostAllocator) AllocateUninit(size int) ([]byte, error) {
	if u, ok := any(&a.small).(UninitAllocator); ok && size >= 0 && size < hostMmapThreshold {
		return u.AllocateUninit(size)
	}
	return a.Allocate(size)
}

// Free returns an allocation to the backend that made it.
func (a *HostAllocator) Free(b []byte) error {
	if a.small.tryFree(b) {
		return nil
	}
	if a.large.owns(b) {
		return a.large.Free(b)
	}
	return fmt.Errorf("memview: host allocator: free of unknown slice at %#x: %w", sliceAddr(b), ErrInvalid)
}

// Reallocate resizes an allocation (see Pool.Reallocate): a mapping that
// stays 1 MiB or more is moved by the mmap allocator (with mremap on Linux,
// no copy); anything else is allocated anew and copied.
func (a *HostAllocator) Reallocate(b []byte, size int) ([]byte, error) {
	if len(b) >= hostMmapThreshold && size >= hostMmapThreshold && a.large.owns(b) {
		return a.large.Reallocate(b, size)
	}
	return reallocateByCopy(a, b, size)
}
