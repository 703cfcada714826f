package memview

import (
	"fmt"
	"unsafe"
)

// NewResizableBuffer is NewBuffer for a buffer whose size and capacity
// Resize and Reserve may change (Arrow's ResizableBuffer). Its memory must be
// addressable by the CPU, which copies it when it moves (else ErrInvalid).
func NewResizableBuffer(p *Pool, size int) (*Buffer, error) {
	if p == nil {
		p = DefaultPool()
	}
	if d := p.Device(); !d.HostAccessible() {
		return nil, fmt.Errorf("memview: resizable buffer on %s: the CPU cannot move it: %w", d, ErrInvalid)
	}
	b, err := NewBuffer(p, size)
	if err != nil {
		return nil, err
	}
	b.resizable = true
	return b, nil
}

// Resize sets the size to n bytes (Arrow's ResizableBuffer::Resize). Growing
// beyond the capacity reallocates to n rounded up to 64 bytes; the bytes
// gained are zero. Shrinking keeps the capacity unless shrinkToFit, which
// reallocates to n rounded up to 64 bytes when that is less; the bytes given
// up are zero-filled, so the padding stays zero. The contents up to
// min(old size, n) are kept; the memory may move (Pointer changes).
//
// Only a resizable buffer can be resized (else ErrInvalid), and only while
// nothing else refers to it or exports it: an array or slice over it, or an
// export, wraps ErrExported. Resize must not run concurrently with other use
// of the buffer.
func (b *Buffer) Resize(n int, shrinkToFit bool) error {
	if n < 0 {
		return fmt.Errorf("memview: resize to negative size %d: %w", n, ErrInvalid)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.resizableLocked("resize"); err != nil {
		return err
	}
	capacity, ok := roundUp64(n)
	if !ok {
		return fmt.Errorf("memview: resize to %d bytes: too large: %w", n, ErrNoMemory)
	}
	if n > b.capacity || (shrinkToFit && n <= b.size && capacity < b.capacity) {
		if err := b.reallocateLocked(capacity); err != nil {
			return fmt.Errorf("memview: resize from %d to %d bytes: %w", b.size, n, err)
		}
	}
	if n < b.size {
		clear(unsafe.Slice((*byte)(b.ptr), b.size)[n:]) // the padding stays zero
	}
	b.size = n
	return nil
}

// Reserve makes the capacity at least capacity bytes (rounded up to 64),
// reallocating if it is less; the size and contents are kept (Arrow's
// ResizableBuffer::Reserve). It is refused as Resize is.
func (b *Buffer) Reserve(capacity int) error {
	if capacity < 0 {
		return fmt.Errorf("memview: reserve of negative capacity %d: %w", capacity, ErrInvalid)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.resizableLocked("reserve"); err != nil {
		return err
	}
	if capacity <= b.capacity {
		return nil
	}
	c, ok := roundUp64(capacity)
	if !ok {
		return fmt.Errorf("memview: reserve of %d bytes: too large: %w", capacity, ErrNoMemory)
	}
	if err := b.reallocateLocked(c); err != nil {
		return fmt.Errorf("memview: reserve of %d bytes: %w", capacity, err)
	}
	return nil
}

// resizableLocked says why b cannot be resized now, or returns nil. Called
// with b.mu held.
func (b *Buffer) resizableLocked(op string) error {
	switch {
	case !b.resizable:
		return fmt.Errorf("memview: %s of a buffer that is not resizable: %w", op, ErrInvalid)
	case b.refs == 0:
		return fmt.Errorf("memview: %s of a released buffer: %w", op, ErrReleased)
	case b.exports > 0:
		return fmt.Errorf("memview: %s of a buffer with %d live exports: %w", op, b.exports, ErrExported)
	case b.refs > 1:
		return fmt.Errorf("memview: %s of a buffer that %d arrays, slices or views refer to: %w", op, b.refs-1, ErrExported)
	}
	return nil
}

// reallocateLocked moves b's memory to a new allocation of capacity bytes
// (a multiple of 64) through its pool. Called with b.mu held.
func (b *Buffer) reallocateLocked(capacity int) error {
	data, err := b.pool.Reallocate(b.data, capacity)
	if err != nil {
		return err
	}
	b.data = data
	b.ptr = unsafe.Pointer(unsafe.SliceData(data))
	b.capacity = capacity
	if b.size > capacity {
		b.size = capacity
	}
	return nil
}
