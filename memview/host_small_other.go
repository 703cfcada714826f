//go:build !linux

package memview

// smallAllocator serves HostAllocator's sizes below hostMmapThreshold: where
// there is no slab allocator, pinned blocks of the Go heap.
type smallAllocator = GoAllocator
