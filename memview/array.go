package memview

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Array is a typed strided view of a Buffer. An Array holds one reference on
// its Buffer; views made from it (Index, Transpose, Reshape, AsReadOnly)
// share the Buffer and hold their own reference. Only Copy, Empty and Zeros
// allocate.
//
// The metadata of an Array never changes; the elements may be written
// through any writable view. Methods are safe for concurrent use, but
// concurrent writes to the same elements are a data race, as in NumPy.
type Array struct {
	buf      *Buffer
	dt       DType
	layout   Layout
	readonly bool

	mu       sync.Mutex  // serializes Release
	released atomic.Bool // set by Release, under mu; read without it
}

// errTooBig reports a shape whose size in bytes does not fit in an int, in
// NumPy's words. It wraps ErrInvalid (NumPy raises ValueError), not
// ErrNoMemory: no allocation was tried.
func errTooBig(shape []int, dt DType) error {
	return fmt.Errorf("memview: array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size (shape %s of %s): %w",
		tuple(shape), dt, ErrInvalid)
}

// Empty returns a new Go-owned, writable array of the given shape, dtype and
// order ('C' or 'F') from p (nil means DefaultPool()). Its memory is
// zero-filled, because every Allocator zero-fills. Its item type is
// dt.Normal(): a dtype of a basic type's layout however spelled ("q", "<d")
// gives an array of that basic type, which exports the basic type's own
// format ("l", "d"); another layout exports its portable spelling.
func Empty(p *Pool, shape []int, dt DType, order byte) (*Array, error) {
	return newEmpty(p, shape, dt, order, true)
}

// EmptyUninit is Empty for a caller that writes every element before
// anything reads one, such as the destination of a whole copy: where the
// pool's allocator is an UninitAllocator, reused memory is not cleared first,
// and the elements hold whatever that memory held. Use Empty otherwise.
func EmptyUninit(p *Pool, shape []int, dt DType, order byte) (*Array, error) {
	return newEmpty(p, shape, dt, order, false)
}

// newEmpty is Empty, zero-filled if zero is set.
func newEmpty(p *Pool, shape []int, dt DType, order byte, zero bool) (*Array, error) {
	if !dt.IsValid() {
		return nil, fmt.Errorf("memview: empty: invalid dtype: %w", ErrType)
	}
	dt = dt.Normal()
	if order != 'C' && order != 'F' {
		return nil, fmt.Errorf("memview: empty: order %q: want 'C' or 'F': %w", order, ErrInvalid)
	}
	if len(shape) > MaxNDim {
		return nil, fmt.Errorf("memview: empty: %d dimensions (at most %d): %w", len(shape), MaxNDim, ErrInvalid)
	}
	nbytes := dt.Itemsize()
	for _, n := range shape {
		if n < 0 {
			return nil, fmt.Errorf("memview: negative dimensions are not allowed: shape %s: %w", tuple(shape), ErrInvalid)
		}
	}
	for _, n := range shape {
		var ok bool
		if nbytes, ok = mulInt(nbytes, n); !ok {
			return nil, errTooBig(shape, dt)
		}
	}
	strides, err := ContiguousStrides(shape, dt.Itemsize(), order)
	if err != nil {
		// Only reachable if the strides overflow while the size does not
		// (a zero dim); NumPy reports that as too large, too.
		return nil, errTooBig(shape, dt)
	}
	buf, err := allocBuffer(p, nbytes, zero)
	if err != nil {
		return nil, errAlloc(nbytes, shape, dt, err)
	}
	a, err := NewArray(buf, dt, shape, strides, 0, false)
	if rerr := buf.Release(); err == nil && rerr != nil {
		err = rerr
	}
	return a, err
}

// Zeros is Empty: new memory is always zero-filled.
func Zeros(p *Pool, shape []int, dt DType, order byte) (*Array, error) {
	return Empty(p, shape, dt, order)
}

// NewArray makes an array over buf with the given layout and retains buf.
// The layout is validated against buf.Len() with NewLayout (errors wrap
// ErrInvalid); nil strides mean C-contiguous. readonly is forced true when
// buf is not mutable. An invalid dtype wraps ErrType; a released buffer wraps
// ErrReleased.
func NewArray(buf *Buffer, dt DType, shape, strides []int, offset int, readonly bool) (*Array, error) {
	if !dt.IsValid() {
		return nil, fmt.Errorf("memview: new array: invalid dtype: %w", ErrType)
	}
	l, err := NewLayout(shape, strides, offset, dt.Itemsize(), buf.Len())
	if err != nil {
		return nil, err
	}
	return newArray(buf, dt, l, readonly)
}

// newArray makes an array over buf with a validated layout, retaining buf.
func newArray(buf *Buffer, dt DType, l Layout, readonly bool) (a *Array, err error) {
	if buf.Released() {
		return nil, fmt.Errorf("memview: array over a released buffer: %w", ErrReleased)
	}
	defer func() {
		// Retain panics if the buffer was released concurrently.
		if r := recover(); r != nil {
			a, err = nil, fmt.Errorf("memview: array over a released buffer: %w", ErrReleased)
		}
	}()
	buf.Retain()
	return &Array{buf: buf, dt: dt, layout: l, readonly: readonly || !buf.Mutable()}, nil
}

// view makes a new array over a's buffer with layout l (validated here
// against the buffer, as a last line of defence).
func (a *Array) view(l Layout, readonly bool) (*Array, error) {
	if err := a.alive(); err != nil {
		return nil, err
	}
	l, err := NewLayout(l.Shape, l.Strides, l.Offset, l.Itemsize, a.buf.Len())
	if err != nil {
		return nil, err
	}
	return newArray(a.buf, a.dt, l, readonly)
}

// alive returns an error wrapping ErrReleased once a is released.
func (a *Array) alive() error {
	if a.Released() {
		return fmt.Errorf("memview: use of released array: %w", ErrReleased)
	}
	return nil
}

// hostAlive is alive for operations that touch the elements from the CPU: it
// also refuses memory the host cannot address (CUDA device memory).
func (a *Array) hostAlive() error {
	if err := a.alive(); err != nil {
		return err
	}
	if d := a.buf.Device(); !d.HostAccessible() {
		return fmt.Errorf("memview: the array is on %s: the CPU cannot read or write it: %w", d, ErrInvalid)
	}
	return nil
}

// Device returns where the array's memory lives.
func (a *Array) Device() Device { return a.buf.Device() }

// Buffer returns the buffer the array views.
func (a *Array) Buffer() *Buffer { return a.buf }

// DType returns the element type.
func (a *Array) DType() DType { return a.dt }

// Layout returns a copy of the layout.
func (a *Array) Layout() Layout {
	l := a.layout
	l.Shape = append([]int{}, l.Shape...)
	l.Strides = append([]int{}, l.Strides...)
	return l
}

// Shape returns a copy of the shape. (make and copy, not append: inlined
// where the copy does not outlive the caller, a small one is on its stack.)
func (a *Array) Shape() []int { return copyInts(a.layout.Shape) }

// Strides returns a copy of the strides, in bytes.
func (a *Array) Strides() []int { return copyInts(a.layout.Strides) }

// copyInts returns a copy of s (never nil).
func copyInts(s []int) []int {
	c := make([]int, len(s))
	copy(c, s)
	return c
}

// Offset returns the byte offset of element 0 in the buffer.
func (a *Array) Offset() int { return a.layout.Offset }

// NDim returns the number of dimensions.
func (a *Array) NDim() int { return a.layout.NDim() }

// Size returns the number of elements.
func (a *Array) Size() int { return a.layout.Size() }

// NBytes returns Size()*Itemsize.
func (a *Array) NBytes() int { return a.layout.NBytes() }

// ReadOnly reports whether writes through this array are refused.
func (a *Array) ReadOnly() bool { return a.readonly }

// Pointer returns the address of element 0 (buffer start + offset). For an
// empty array it is still inside the buffer or just past its end.
func (a *Array) Pointer() unsafe.Pointer {
	if a.layout.Offset == 0 {
		return a.buf.Pointer()
	}
	return unsafe.Add(a.buf.Pointer(), a.layout.Offset)
}

// CContiguous reports whether the layout is C-contiguous (PyBuffer_IsContiguous 'C').
func (a *Array) CContiguous() bool { return a.layout.CContiguous() }

// FContiguous reports whether the layout is F-contiguous (PyBuffer_IsContiguous 'F').
func (a *Array) FContiguous() bool { return a.layout.FContiguous() }

// Release drops this array's reference on its buffer. A second call wraps
// ErrReleased. If the buffer refuses because it still has live exports
// (ErrExported), the array keeps its reference and stays usable.
func (a *Array) Release() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.released.Load() {
		return fmt.Errorf("memview: release of released array: %w", ErrReleased)
	}
	if err := a.buf.Release(); err != nil {
		return fmt.Errorf("memview: release of array %s %s: %w", tuple(a.layout.Shape), a.dt, err)
	}
	a.released.Store(true)
	return nil
}

// Released reports whether Release has succeeded. It takes no lock (one
// atomic load), so element loops may check it cheaply.
func (a *Array) Released() bool { return a.released.Load() }

// AsReadOnly returns a read-only view of the same elements.
func (a *Array) AsReadOnly() (*Array, error) { return a.view(a.Layout(), true) }

// String describes the array's metadata (not its elements), with the shape
// and strides as Python tuples: errors of bound Go packages that print an
// array reach Python users.
func (a *Array) String() string {
	return fmt.Sprintf("memview.Array(shape=%s, strides=%s, offset=%d, dtype=%s, readonly=%t)",
		tuple(a.layout.Shape), tuple(a.layout.Strides), a.layout.Offset, a.dt, a.readonly)
}
