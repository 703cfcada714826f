package memview

import (
	"fmt"
	"unsafe"
)

// Slice returns an immutable buffer over length bytes of b from offset,
// sharing b's memory and holding a reference on b (its Parent) until the
// slice's last reference goes (Arrow's SliceBuffer). A range outside b wraps
// ErrIndex; a released b wraps ErrReleased.
func (b *Buffer) Slice(offset, length int) (*Buffer, error) {
	return b.slice(offset, length, false)
}

// MutableSlice is Slice for a mutable slice (Arrow's SliceMutableBuffer); an
// immutable b wraps ErrReadOnly.
func (b *Buffer) MutableSlice(offset, length int) (*Buffer, error) {
	if !b.mutable {
		return nil, fmt.Errorf("memview: mutable slice of an immutable buffer: %w", ErrReadOnly)
	}
	return b.slice(offset, length, true)
}

func (b *Buffer) slice(offset, length int, mutable bool) (*Buffer, error) {
	if offset < 0 || length < 0 || offset > b.size-length {
		return nil, fmt.Errorf("memview: slice [%d:%d+%d] of a %d-byte buffer: out of bounds: %w",
			offset, offset, length, b.size, ErrIndex)
	}
	return b.child(offset, length, mutable, b.device)
}

// child makes a buffer over b's bytes [offset, offset+length) seen as memory
// of dev, retaining b.
func (b *Buffer) child(offset, length int, mutable bool, dev Device) (*Buffer, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refs == 0 {
		return nil, fmt.Errorf("memview: slice of a released buffer: %w", ErrReleased)
	}
	b.refs++
	p := b.ptr
	if offset != 0 {
		p = unsafe.Add(p, offset)
	}
	return &Buffer{ptr: p, size: length, capacity: length, mutable: mutable, device: dev, refs: 1, parent: b}, nil
}

// ViewOn returns a buffer over b's memory addressed as memory of dev (Arrow's
// Buffer::View): b itself (with a new reference) when it is already on dev;
// else, when dev can address the memory directly (see Device.ViewableOn) —
// pinned or managed memory seen from the host or a CUDA device, for
// instance — a view that holds a reference on b. Memory dev cannot address
// wraps ErrInvalid: a copy is needed (cuda.ViewOrCopy makes one).
func (b *Buffer) ViewOn(dev Device) (*Buffer, error) {
	if b.device == dev {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.refs == 0 {
			return nil, fmt.Errorf("memview: view of a released buffer: %w", ErrReleased)
		}
		b.refs++
		return b, nil
	}
	if !b.device.ViewableOn(dev) {
		return nil, fmt.Errorf("memview: %s memory cannot be addressed from %s without a copy: %w", b.device, dev, ErrInvalid)
	}
	return b.child(0, b.size, b.mutable, dev)
}
