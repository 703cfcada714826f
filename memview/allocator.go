package memview

// alignment is the byte alignment of every allocation, as in Apache Arrow: wide
// enough for any SIMD load and for a cache line.
const alignment = 64

// Allocator hands out memory that never moves, is zero-filled and 64-byte
// aligned, and may be passed to C and kept there (it is either off the Go heap
// or pinned).
//
// Memory handed to C or Python must neither move nor be collected while
// anything outside Go refers to it, and under GOEXPERIMENT=cgocheck2 a Go
// pointer may only be stored in C memory if it is pinned. Every Allocator
// therefore returns memory that is either outside the Go heap (mmap) or pinned
// with runtime.Pinner from Allocate until Free.
type Allocator interface {
	// Allocate returns size zero bytes with len == cap == size. Size 0 gives a
	// non-nil, 64-byte-aligned, zero-length slice whose address is valid.
	// A negative size wraps ErrInvalid; a size that cannot be served wraps
	// ErrNoMemory.
	Allocate(size int) ([]byte, error)
	// Free returns memory to the allocator. b must be a slice returned by
	// Allocate (the same first byte address); an unknown slice wraps
	// ErrInvalid.
	Free(b []byte) error
	// Name is the backend name, such as "go", "mmap" or "host".
	Name() string
}

// UninitAllocator is an Allocator that can also hand out memory without the
// zero fill, for callers that overwrite every byte before anything reads one
// (the destination of a whole copy). Pool.AllocateUninit uses it where the
// pool's allocator has it, and Allocate otherwise.
type UninitAllocator interface {
	Allocator
	// AllocateUninit is Allocate without the promise of zeros: the bytes may
	// be what this allocator's earlier allocations left there (freed memory of
	// this process; fresh mappings still come zero-filled from the kernel).
	// Free takes it back as it takes Allocate's.
	AllocateUninit(size int) ([]byte, error)
}

// DeviceAllocator is an Allocator whose memory is not ordinary host memory
// (CUDA device, pinned or managed memory, from package cuda). Buffers from a
// Pool over it report that Device. Device memory is handed out as a []byte
// only so that it fits the Allocator interface: its bytes must never be read
// or written by the CPU unless Device().HostAccessible().
type DeviceAllocator interface {
	Allocator
	// Device is where the memory lives.
	Device() Device
}
