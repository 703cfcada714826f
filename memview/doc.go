// Package memview is the pure-Go core of memview: zero-copy, typed, strided
// views of memory that Go owns and that Python (NumPy through the buffer
// protocol, CuPy through the CUDA array interface, DLPack consumers) or C may
// use in place, and views of memory others own, wrapped without a copy.
//
// The pieces, from the bottom up:
//   - Allocator hands out aligned, zero-filled memory (HostAllocator, the
//     default, made of SlabAllocator and MmapAllocator; GoAllocator); Pool
//     wraps one with statistics (after Arrow's MemoryPool) and is itself an
//     Allocator, so pools stack: NewProxyPool counts one part of a program,
//     LoggingAllocator logs every call, and CheckedAllocator (NewCheckedPool)
//     records where each live allocation was made, for leak reports
//     (Pool.AssertEmpty in tests). DefaultPool is chosen by the
//     MEMVIEW_DEFAULT_POOL environment variable, or by SetDefaultPool.
//   - Buffer is a span of bytes with a reference count (Go owners) and an
//     export count (outside consumers), after Arrow's Buffer: a size and a
//     capacity (rounded up to 64 bytes, the padding zeroed), mutable or not,
//     Slice and MutableSlice that keep their parent alive, resizable buffers
//     (Resize, Reserve: refused while anything else refers to them), and
//     ViewOn for the same memory seen from another device (pinned or managed
//     memory from the host or a CUDA device). WrapExternal adopts foreign
//     memory (WrapExternalArray: with an array over it, in one allocation),
//     WrapGo the backing array of a Go slice, pinned while referenced.
//     BufferBuilder and TypedBufferBuilder build buffers by appending,
//     growing by a factor of two.
//   - DType names the element type, with NumPy names, typestrs and PEP 3118
//     formats: the basic numeric types, or any item a format describes
//     (byte-swapped numbers, records, strings, sub-arrays). ParseFormat reads
//     the full struct grammar of PEP 3118 into an ItemDesc (fields with code,
//     byte order, offset, size, repeat), which packs and unpacks one item.
//     Every spelling of one layout has one canonical format
//     (ItemDesc.Canonical) and one name; DType.SameLayout, not ==, decides
//     whether two DTypes are the same item type.
//   - Layout is shape, strides and offset, validated once against the buffer.
//   - Array is a DType and a Layout over a Buffer, with NumPy basic indexing,
//     Transpose, Reshape, BroadcastTo, Copy, CopyInto, CopyData and element
//     access (Float64, Item, SetItem); ToContiguous and FromContiguous move
//     its elements to and from bytes in C or Fortran order.
//   - Exporter is the producer side, after Ruby's MemoryView: any Go type
//     that owns memory lends views of it (View, ReleaseView, Available) for a
//     Request; Export is the consumer entry. View[T] is the typed consumer
//     side: At, Set and iteration over any strided array of T. FromSlice
//     views a Go slice as an Array and AsSlice a contiguous Array as a slice,
//     both without a copy.
//
// # Memory rules
//
// Memory handed out never moves and is never collected while anything refers
// to it: it is either off the Go heap (mapped slabs and mappings: every
// backend DefaultPool may use) or, from GoAllocator, on the Go heap and pinned
// with runtime.Pinner from allocation until free, so its address may be stored
// in C memory (also under cgocheck2). Running out of memory is ErrNoMemory
// from every backend NewAllocator names, never the Go runtime's fatal error;
// under an address-space limit (RLIMIT_AS) a mapping that would leave the Go
// heap too little room is refused (CheckAddressSpace). A Buffer returns
// its memory only when the last reference is gone and no export is live;
// freeing exported memory is refused with ErrExported rather than risked.
//
// # Strides
//
// Strides are signed byte counts everywhere, as in PEP 3118 and the CUDA
// array interface. A reversed view is element 0 at the far end plus negative
// strides; every layout is checked once, when it is made, to reach only bytes
// inside its buffer.
//
// # Copies
//
// Only Empty, Zeros and Copy allocate, and only they, CopyInto, CopyData,
// ToContiguous, FromContiguous and FillBytes move elements. Indexing,
// Transpose, Reshape and AsReadOnly return views that share the buffer;
// Reshape refuses, rather than copies, when no view is possible.
//
// A copy between strided layouts drops axes of length 1, merges axes that are
// contiguous in both operands, visits the destination in memory order, moves
// items with loads and stores of their size (runs contiguous in both are one
// memmove; on amd64, from 1 MiB, a copy with non-temporal stores in
// assembly), goes through cache-sized tiles when the source is transposed,
// and splits copies of 4 MiB or more over GOMAXPROCS goroutines (fewer after
// SetParallelism; one in a forked child). Views of one
// buffer that overlap are copied as if through a temporary.
//
// # Errors
//
// Every error wraps one of the sentinels ErrInvalid, ErrType, ErrIndex,
// ErrReadOnly, ErrExported, ErrReleased or ErrNoMemory, for errors.Is.
//
// The package uses no cgo and no Python; the bindings live in pyext.
package memview
