package memview

// smallAllocator serves HostAllocator's sizes below hostMmapThreshold: slabs
// of mapped memory, off the Go heap.
type smallAllocator = SlabAllocator
