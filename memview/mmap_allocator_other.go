//go:build !unix

package memview

var _ Allocator = (*MmapAllocator)(nil)

// MmapAllocator stands in for the mmap backend on systems without mmap: it
// allocates pinned memory from the Go heap, so its memory still never moves.
// On Unix systems it maps anonymous memory instead.
//
// The zero value is ready to use.
type MmapAllocator struct {
	g GoAllocator
}

// Name returns "mmap".
func (a *MmapAllocator) Name() string { return "mmap" }

// Allocate returns size zero bytes, 64-byte aligned and pinned.
func (a *MmapAllocator) Allocate(size int) ([]byte, error) { return a.g.Allocate(size) }

// Free releases an allocation made by Allocate.
func (a *MmapAllocator) Free(b []byte) error { return a.g.Free(b) }

// owns reports whether b starts a live allocation of a.
func (a *MmapAllocator) owns(b []byte) bool { return a.g.owns(b) }
