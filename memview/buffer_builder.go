package memview

import (
	"fmt"
	"unsafe"
)

// BufferBuilder builds a Buffer by appending bytes (Arrow's BufferBuilder):
// its memory comes from a Pool as a resizable buffer that grows by a factor
// of two (Arrow found 2× growth markedly better than smaller factors with
// system allocators), and Finish hands it over with its padding zeroed,
// optionally shrunk to fit. The builder is then empty and can be used again.
//
// The zero value is not ready: use NewBufferBuilder. A BufferBuilder is not
// safe for concurrent use.
type BufferBuilder struct {
	pool *Pool
	buf  *Buffer // resizable, size == capacity; nil until memory is reserved
	n    int     // bytes appended
}

// NewBufferBuilder returns an empty builder allocating from p (nil: the
// default pool at the time of each allocation).
func NewBufferBuilder(p *Pool) *BufferBuilder { return &BufferBuilder{pool: p} }

// Len returns the number of bytes appended.
func (b *BufferBuilder) Len() int { return b.n }

// Cap returns the bytes the builder can hold before it must grow.
func (b *BufferBuilder) Cap() int {
	if b.buf == nil {
		return 0
	}
	return b.buf.Len()
}

// Bytes returns the bytes appended so far, aliasing the builder's memory:
// valid until the next call that may grow the builder, or Finish.
func (b *BufferBuilder) Bytes() []byte {
	if b.buf == nil {
		return []byte{}
	}
	return b.buf.Bytes()[:b.n]
}

// Spare returns the free bytes beyond Len, up to Cap, for the caller to
// write in place before calling Advance (Arrow's unsafe append). Valid as
// Bytes is.
func (b *BufferBuilder) Spare() []byte {
	if b.buf == nil {
		return []byte{}
	}
	return b.buf.Bytes()[b.n:]
}

// Advance counts n more bytes, written through Spare, as appended. n outside
// [0, len(Spare())] wraps ErrInvalid.
func (b *BufferBuilder) Advance(n int) error {
	if n < 0 || n > b.Cap()-b.n {
		return fmt.Errorf("memview: builder advance by %d with %d spare bytes: %w", n, b.Cap()-b.n, ErrInvalid)
	}
	b.n += n
	return nil
}

// Resize sets the capacity to capacity bytes rounded up to 64 (Arrow's
// BufferBuilder::Resize): it grows, or with shrinkToFit shrinks, the memory.
// Bytes beyond a smaller capacity are dropped from the contents.
func (b *BufferBuilder) Resize(capacity int, shrinkToFit bool) error {
	if capacity < 0 {
		return fmt.Errorf("memview: builder resize to negative capacity %d: %w", capacity, ErrInvalid)
	}
	c, ok := roundUp64(capacity)
	if !ok {
		return fmt.Errorf("memview: builder of %d bytes is too large: %w", capacity, ErrNoMemory)
	}
	switch {
	case b.buf == nil:
		if c == 0 {
			return nil
		}
		buf, err := NewResizableBuffer(b.pool, c)
		if err != nil {
			return fmt.Errorf("memview: builder: %w", err)
		}
		b.buf = buf
	case c > b.buf.Len(), shrinkToFit && c < b.buf.Len():
		if err := b.buf.Resize(c, true); err != nil {
			return fmt.Errorf("memview: builder: %w", err)
		}
	}
	b.n = min(b.n, b.Cap())
	return nil
}

// Reserve makes room for additional more bytes: when they do not fit, the
// capacity grows to the larger of what is needed and twice the current
// capacity (Arrow's GrowByFactor).
func (b *BufferBuilder) Reserve(additional int) error {
	if additional < 0 {
		return fmt.Errorf("memview: builder reserve of %d bytes: %w", additional, ErrInvalid)
	}
	need, ok := addInt(b.n, additional)
	if !ok {
		return fmt.Errorf("memview: builder of %d + %d bytes is too large: %w", b.n, additional, ErrNoMemory)
	}
	if need <= b.Cap() {
		return nil
	}
	return b.Resize(max(need, 2*b.Cap()), false)
}

// Append appends data, growing the builder as needed.
func (b *BufferBuilder) Append(data []byte) error {
	if err := b.Reserve(len(data)); err != nil {
		return err
	}
	b.n += copy(b.buf.Bytes()[b.n:], data)
	return nil
}

// AppendRepeated appends n copies of the byte c.
func (b *BufferBuilder) AppendRepeated(c byte, n int) error {
	if err := b.Reserve(n); err != nil {
		return err
	}
	s := b.buf.Bytes()[b.n : b.n+n]
	for i := range s {
		s[i] = c
	}
	b.n += n
	return nil
}

// Finish returns the bytes appended as a buffer of size Len, its padding (up
// to its capacity) zeroed, and empties the builder for reuse. With
// shrinkToFit the capacity is Len rounded up to 64 bytes; without, the
// builder's whole capacity is kept. The buffer holds one reference for the
// caller; it is no longer resizable. An empty builder gives an empty buffer.
func (b *BufferBuilder) Finish(shrinkToFit bool) (*Buffer, error) {
	if b.buf == nil {
		buf, err := NewBuffer(b.pool, 0)
		if err != nil {
			return nil, fmt.Errorf("memview: builder: %w", err)
		}
		return buf, nil
	}
	if err := b.buf.Resize(b.n, shrinkToFit); err != nil {
		return nil, fmt.Errorf("memview: builder: %w", err)
	}
	buf := b.buf
	buf.resizable = false
	b.buf, b.n = nil, 0
	return buf, nil
}

// Reset empties the builder and gives its memory back.
func (b *BufferBuilder) Reset() error {
	buf := b.buf
	b.buf, b.n = nil, 0
	if buf != nil {
		return buf.Release()
	}
	return nil
}

// TypedBufferBuilder builds a buffer of fixed-width items of Go type T
// (Arrow's TypedBufferBuilder), on a BufferBuilder: Reserve, Len and Cap count
// items. FinishArray gives a 1-D Array of DTypeOf[T]().
type TypedBufferBuilder[T Element] struct {
	b BufferBuilder
}

// NewTypedBufferBuilder returns an empty builder of T items allocating from p
// (nil: the default pool).
func NewTypedBufferBuilder[T Element](p *Pool) *TypedBufferBuilder[T] {
	return &TypedBufferBuilder[T]{b: BufferBuilder{pool: p}}
}

// itemSize is the size of one T.
func itemSize[T Element]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// Len returns the number of items appended.
func (t *TypedBufferBuilder[T]) Len() int { return t.b.n / itemSize[T]() }

// Cap returns the number of items the builder holds before it must grow.
func (t *TypedBufferBuilder[T]) Cap() int { return t.b.Cap() / itemSize[T]() }

// Reserve makes room for n more items (growing by a factor of two).
func (t *TypedBufferBuilder[T]) Reserve(n int) error {
	bytes, ok := mulInt(n, itemSize[T]())
	if !ok || n < 0 {
		return fmt.Errorf("memview: typed builder reserve of %d items: %w", n, ErrInvalid)
	}
	return t.b.Reserve(bytes)
}

// Append appends one item.
func (t *TypedBufferBuilder[T]) Append(v T) error {
	size := itemSize[T]()
	if t.b.n+size > t.b.Cap() {
		if err := t.b.Reserve(size); err != nil {
			return err
		}
	}
	// The buffer is 64-byte aligned and holds whole items, so the item is
	// aligned for T.
	*(*T)(unsafe.Add(t.b.buf.ptr, t.b.n)) = v
	t.b.n += size
	return nil
}

// AppendSlice appends the items of vs.
func (t *TypedBufferBuilder[T]) AppendSlice(vs []T) error {
	if len(vs) == 0 {
		return nil
	}
	return t.b.Append(unsafe.Slice((*byte)(unsafe.Pointer(&vs[0])), len(vs)*itemSize[T]()))
}

// Values returns the items appended so far, aliasing the builder's memory
// (valid until the builder next grows, or Finish).
func (t *TypedBufferBuilder[T]) Values() []T {
	if t.b.n == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(t.b.buf.ptr), t.Len())
}

// Finish returns the items as a buffer (see BufferBuilder.Finish) and
// empties the builder for reuse.
func (t *TypedBufferBuilder[T]) Finish(shrinkToFit bool) (*Buffer, error) {
	return t.b.Finish(shrinkToFit)
}

// FinishArray returns the items as a new 1-D array of DTypeOf[T]() and
// empties the builder for reuse.
func (t *TypedBufferBuilder[T]) FinishArray(shrinkToFit bool) (*Array, error) {
	n := t.Len()
	buf, err := t.b.Finish(shrinkToFit)
	if err != nil {
		return nil, err
	}
	a, err := NewArray(buf, DTypeOf[T](), []int{n}, nil, 0, false)
	if rerr := buf.Release(); err == nil && rerr != nil {
		err = rerr
	}
	return a, err
}

// Reset empties the builder and gives its memory back.
func (t *TypedBufferBuilder[T]) Reset() error { return t.b.Reset() }
