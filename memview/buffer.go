package memview

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Buffer is a span of bytes with a reference count and an export count, after
// Apache Arrow's Buffer: a size, a capacity, a mutable flag, a device and,
// for a slice or a view, the parent it keeps alive.
//
// A buffer from a Pool owns its capacity: its size rounded up to a multiple of
// 64 bytes, the padding beyond the size zero-filled (and kept so). A slice
// (Slice, MutableSlice) or a view on another device (ViewOn) shares its
// parent's memory and holds a reference on it. A resizable buffer
// (NewResizableBuffer) can change its size and capacity while nothing else
// refers to it.
//
// References are held by Go owners (each Array holds one); exports count
// outside consumers (a Py_buffer, a DLPack tensor) that see the memory
// directly. The memory is returned, to its Pool or through the release
// function of WrapExternal, when the last reference goes, and never while an
// export is live. A Buffer is safe for concurrent use.
type Buffer struct {
	ptr     unsafe.Pointer // first byte
	size    int
	data    []byte // Go-owned memory as the pool returned it; nil for external memory
	pool    *Pool  // owner of data
	mutable bool
	device  Device

	mu       sync.Mutex
	refs     int
	exports  int
	release  func()
	released atomic.Bool
	state    DeviceState // set once, by the package that knows the device

	// Capacities, slices and resizing (buffer_slice.go, buffer_resize.go).
	capacity  int     // bytes from ptr that belong to the buffer (len(data) for pool memory)
	parent    *Buffer // what a slice or view was made from (one reference held), or nil
	resizable bool
}

// roundUp64 rounds n >= 0 up to a multiple of 64, reporting overflow.
func roundUp64(n int) (int, bool) {
	if n > math.MaxInt-(alignment-1) {
		return 0, false
	}
	return (n + alignment - 1) &^ (alignment - 1), true
}

// DeviceState is what a device package keeps with a buffer's memory rather
// than with any one view of it — for CUDA memory, the work still pending on it
// and the stream that work runs on (see package cuda). Close is called once,
// when the last reference to the buffer goes, before the memory is freed: it
// waits for pending work and gives back what the state holds.
type DeviceState interface {
	Close() error
}

// root is the buffer that owns the memory: b, or the parent of a slice or view.
func (b *Buffer) root() *Buffer {
	for b.parent != nil {
		b = b.parent
	}
	return b
}

// DeviceState returns the state attached to the buffer's memory (a slice or a
// view shares its parent's), or nil.
func (b *Buffer) DeviceState() DeviceState {
	b = b.root()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}

// AttachDeviceState attaches s unless a state is attached already, and returns
// the state attached (s, or the earlier one: then the caller closes s). It
// panics with "memview: AttachDeviceState on released Buffer" if the buffer
// has no references.
func (b *Buffer) AttachDeviceState(s DeviceState) DeviceState {
	b = b.root()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refs == 0 {
		panic("memview: AttachDeviceState on released Buffer")
	}
	if b.state == nil {
		b.state = s
	}
	return b.state
}

// NewBuffer allocates a Go-owned, mutable buffer of size bytes from p (nil
// means DefaultPool()) with one reference. Its capacity is size rounded up to
// a multiple of 64 bytes; that much is asked of the pool (and counted in its
// statistics), all of it zero-filled.
func NewBuffer(p *Pool, size int) (*Buffer, error) {
	if size < 0 {
		return nil, fmt.Errorf("memview: buffer of negative size %d: %w", size, ErrInvalid)
	}
	b, err := newBuffer(p, size)
	if err != nil {
		return nil, fmt.Errorf("memview: buffer of %d bytes: %w", size, err)
	}
	return b, nil
}

// newBuffer is NewBuffer for a size that is not negative, with the pool's
// error as it is (callers say what the memory was for).
func newBuffer(p *Pool, size int) (*Buffer, error) { return allocBuffer(p, size, true) }

// allocBuffer is newBuffer, whose first size bytes are zero only if zero is
// set (Pool.AllocateUninit otherwise); the bytes from size to the capacity
// are zero either way, since growing within the capacity exposes them.
func allocBuffer(p *Pool, size int, zero bool) (*Buffer, error) {
	if p == nil {
		p = DefaultPool()
	}
	capacity, ok := roundUp64(size)
	if !ok {
		return nil, fmt.Errorf("too large: %w", ErrNoMemory)
	}
	var data []byte
	var err error
	if zero || !p.Device().HostAccessible() {
		data, err = p.Allocate(capacity)
	} else if data, err = p.AllocateUninit(capacity); err == nil {
		clear(data[size:])
	}
	if err != nil {
		return nil, err
	}
	return &Buffer{
		ptr:      unsafe.Pointer(unsafe.SliceData(data)),
		size:     size,
		data:     data,
		pool:     p,
		mutable:  true,
		device:   p.Device(),
		refs:     1,
		capacity: capacity,
	}, nil
}

// NewBufferFrom allocates a buffer from p (nil: DefaultPool()) holding a copy
// of src, mutable or not. The pool's memory must be addressable by the CPU
// (else ErrInvalid).
func NewBufferFrom(p *Pool, src []byte, mutable bool) (*Buffer, error) {
	if p == nil {
		p = DefaultPool()
	}
	if d := p.Device(); !d.HostAccessible() {
		return nil, fmt.Errorf("memview: buffer from bytes on %s: the CPU cannot write it: %w", d, ErrInvalid)
	}
	b, err := NewBuffer(p, len(src))
	if err != nil {
		return nil, err
	}
	copy(b.data, src)
	b.mutable = mutable
	return b, nil
}

// WrapExternal wraps memory owned by someone else (e.g. a Python exporter).
// release is called exactly once when the last reference goes (may be nil).
// p is an unsafe.Pointer to the first byte; size may be 0. The caller keeps
// the memory valid and unmoved until release is called. The Buffer starts
// with one reference.
func WrapExternal(p unsafe.Pointer, size int, readonly bool, release func()) *Buffer {
	return &Buffer{ptr: p, size: size, capacity: size, mutable: !readonly, refs: 1, release: release}
}

// WrapDevice is WrapExternal for memory on dev, such as an imported CUDA array.
// addr is an address on that device, kept as an integer because for CUDA device
// memory it is not a host pointer: this package never dereferences it (every
// host access to a CUDA buffer is refused), it only does address arithmetic.
func WrapDevice(addr uintptr, size int, readonly bool, dev Device, release func()) *Buffer {
	// Reinterpreting the bits, not converting, says that addr is not derived
	// from a Go pointer (and keeps go vet's unsafeptr check meaningful).
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	b := WrapExternal(p, size, readonly, release)
	b.device = dev
	return b
}

// Device returns where the memory lives.
func (b *Buffer) Device() Device { return b.device }

// Bytes returns the span (len == Len()), aliasing the memory, or nil once
// the buffer is released or when the CPU cannot address the memory (CUDA
// device memory). Do not retain it past Release.
func (b *Buffer) Bytes() []byte {
	if b.released.Load() || b.ptr == nil || !b.device.HostAccessible() {
		return nil
	}
	return unsafe.Slice((*byte)(b.ptr), b.size)
}

// Pointer returns the address of the first byte.
func (b *Buffer) Pointer() unsafe.Pointer { return b.ptr }

// Len returns the size in bytes.
func (b *Buffer) Len() int { return b.size }

// Capacity returns the bytes the buffer owns from its first byte: for memory
// from a pool, the size rounded up to 64 bytes (or more, after Reserve); for
// slices, views and external memory, the size.
func (b *Buffer) Capacity() int { return b.capacity }

// Parent returns the buffer a slice or view was made from (and keeps alive),
// or nil.
func (b *Buffer) Parent() *Buffer { return b.parent }

// Resizable reports whether Resize and Reserve may change the buffer.
func (b *Buffer) Resizable() bool { return b.resizable }

// Mutable reports whether the memory may be written.
func (b *Buffer) Mutable() bool { return b.mutable }

// Retain adds a reference. It panics with "memview: Retain of released
// Buffer" if the buffer has no references left.
func (b *Buffer) Retain() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refs == 0 {
		panic("memview: Retain of released Buffer")
	}
	b.refs++
}

// Release drops a reference. When the last one goes, the buffer must have
// no live exports: otherwise Release wraps ErrExported and keeps the reference
// (the buffer stays usable; call Release again after Unexport). Without
// exports the memory goes back to its pool, or the release function of
// WrapExternal is called. Releasing a released buffer wraps ErrReleased.
func (b *Buffer) Release() error {
	b.mu.Lock()
	switch {
	case b.refs == 0:
		b.mu.Unlock()
		return fmt.Errorf("memview: release of released buffer: %w", ErrReleased)
	case b.refs == 1 && b.exports > 0:
		n := b.exports
		b.mu.Unlock()
		return fmt.Errorf("memview: release of a %d-byte buffer with %d live exports: %w", b.size, n, ErrExported)
	}
	b.refs--
	if b.refs > 0 {
		b.mu.Unlock()
		return nil
	}
	b.released.Store(true)
	release, state := b.release, b.state
	b.release = nil
	b.mu.Unlock()
	var err error
	if state != nil {
		// Pending device work must end before the memory can be reused.
		err = state.Close()
	}
	if b.pool != nil {
		if ferr := b.pool.Free(b.data); ferr != nil {
			err = errors.Join(err, ferr)
		}
	}
	if release != nil {
		release()
	}
	if b.parent != nil {
		if perr := b.parent.Release(); perr != nil {
			err = errors.Join(err, fmt.Errorf("parent: %w", perr))
		}
	}
	if err != nil {
		return fmt.Errorf("memview: release of a %d-byte buffer: %w", b.size, err)
	}
	return nil
}

// Export records that an outside consumer now sees the memory. It panics
// with "memview: Export of released Buffer" if the buffer has no references.
func (b *Buffer) Export() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refs == 0 {
		panic("memview: Export of released Buffer")
	}
	b.exports++
}

// Unexport records that an outside consumer is done; it wraps ErrInvalid if
// there was no export.
func (b *Buffer) Unexport() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.exports == 0 {
		return fmt.Errorf("memview: unexport of a buffer with no exports: %w", ErrInvalid)
	}
	b.exports--
	return nil
}

// Exports returns the number of live exports.
func (b *Buffer) Exports() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.exports
}

// Refs returns the number of references.
func (b *Buffer) Refs() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refs
}

// Released reports whether the last reference is gone.
func (b *Buffer) Released() bool { return b.released.Load() }
