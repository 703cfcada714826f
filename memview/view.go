package memview

import (
	"fmt"
	"iter"
	"unsafe"
)

// Element is the set of Go types a View may have, one per DType but Float16
// (which has no Go type): bool, int8 ... int64, uint8 ... uint64, float32,
// float64, complex64 and complex128.
type Element interface {
	bool | int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 |
		float32 | float64 | complex64 | complex128
}

// DTypeOf returns the DType whose elements are Go values of type T: Bool for
// bool, Uint8 for uint8, Complex128 for complex128 and so on.
func DTypeOf[T Element]() DType {
	var z T
	switch any(z).(type) {
	case bool:
		return Bool
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case uint8:
		return Uint8
	case uint16:
		return Uint16
	case uint32:
		return Uint32
	case uint64:
		return Uint64
	case float32:
		return Float32
	case float64:
		return Float64
	case complex64:
		return Complex64
	case complex128:
		return Complex128
	}
	return DType{} // unreachable: Element has no other types
}

// View is a typed strided view of an Array's elements, the consumer side of
// memview for Go code: At and Set read and write elements in place, through
// the array's strides (negative ones too), with no allocation and no copy.
//
// A View borrows its Array: it holds no reference of its own and is valid
// while the Array is not released. At, Set and All check (one atomic load)
// that the memory has not gone back and panic if it has; Get, Put and Apply
// also refuse a released Array. A View is one pointer: copies share
// everything, and the metadata never changes.
//
// Indexes are as for Go slices: one per axis, from 0 to the axis length
// minus 1; negative indexes are out of range. At and Set panic on a bad
// index, like slice indexing, with an error value wrapping ErrIndex; Get
// and Put return it instead.
//
// Concurrent reads are safe; concurrent writes to the same element are a
// data race, as for a slice.
type View[T Element] struct {
	c *viewCore
}

// viewCore is what a View knows, independent of T.
type viewCore struct {
	arr      *Array
	buf      *Buffer
	base     unsafe.Pointer // element 0
	shape    []int
	strides  []int // bytes
	readonly bool
	boolean  bool // T is bool: load bytes as != 0
}

// NewView returns a View of a's elements as Go values of type T. a's dtype
// must be exactly T's (DTypeOf), else the error wraps ErrType; memory the
// CPU cannot address (CUDA device memory) and elements not aligned for T
// (possible only in imported layouts) wrap ErrInvalid; a released a wraps
// ErrReleased.
func NewView[T Element](a *Array) (View[T], error) {
	var z T
	if a == nil {
		return View[T]{}, fmt.Errorf("memview: view of a nil array: %w", ErrInvalid)
	}
	if err := a.hostAlive(); err != nil {
		return View[T]{}, err
	}
	if dt := DTypeOf[T](); !a.dt.SameLayout(dt) {
		return View[T]{}, fmt.Errorf("memview: a View[%T] needs a %s array, not %s: %w", z, dt, a.dt, ErrType)
	}
	l := a.layout
	if align := unsafe.Alignof(z); align > 1 && l.Size() > 0 {
		aligned := uintptr(a.Pointer())%align == 0
		for k, n := range l.Shape {
			if n > 1 && uintptr(l.Strides[k])%align != 0 {
				aligned = false
			}
		}
		if !aligned {
			return View[T]{}, fmt.Errorf("memview: a View[%T] needs elements aligned to %d bytes; the array (offset %d, strides %s) has some that are not (read them with ItemBytes): %w",
				z, align, l.Offset, tuple(l.Strides), ErrInvalid)
		}
	}
	return View[T]{&viewCore{
		arr:      a,
		buf:      a.buf,
		base:     a.Pointer(),
		shape:    append([]int{}, l.Shape...),
		strides:  append([]int{}, l.Strides...),
		readonly: a.readonly,
		boolean:  a.dt.SameLayout(Bool),
	}}, nil
}

// zeroCore stands in for the core of the zero View: no array, no dims.
var zeroCore = &viewCore{}

// core returns v's core, or zeroCore for the zero View.
func (v View[T]) core() *viewCore {
	if v.c == nil {
		return zeroCore
	}
	return v.c
}

// Array returns the array v views (nil for the zero View).
func (v View[T]) Array() *Array { return v.core().arr }

// Shape returns a copy of the shape.
func (v View[T]) Shape() []int { return append([]int{}, v.core().shape...) }

// Strides returns a copy of the strides, in bytes.
func (v View[T]) Strides() []int { return append([]int{}, v.core().strides...) }

// NDim returns the number of dimensions.
func (v View[T]) NDim() int { return len(v.core().shape) }

// Len returns the number of elements: the product of the shape (1 for a 0-d
// view, 0 for the zero View).
func (v View[T]) Len() int {
	if v.c == nil {
		return 0
	}
	n := 1
	for _, d := range v.c.shape {
		n *= d
	}
	return n
}

// ReadOnly reports whether Set and Put are refused.
func (v View[T]) ReadOnly() bool { return v.core().readonly }

// At returns the element at idx (one index per axis; none for a 0-d view).
// It panics on a bad index, a zero View or released memory.
func (v View[T]) At(idx ...int) T {
	p := v.c.addr(idx) // first: it panics for the zero View
	return load[T](v.c, p)
}

// Set stores x in the element at idx. It panics as At does, and with an
// error wrapping ErrReadOnly on a read-only view.
func (v View[T]) Set(x T, idx ...int) {
	p := v.c.addr(idx) // first: it panics for the zero View
	if v.c.readonly {
		v.c.failReadOnly()
	}
	*(*T)(p) = x
}

// Get is At returning an error instead of panicking: ErrIndex for a bad
// index, ErrReleased for a released array, ErrInvalid for the zero View.
func (v View[T]) Get(idx ...int) (T, error) {
	c := v.core()
	p, err := c.checkedAddr(idx)
	if err != nil {
		var z T
		return z, err
	}
	return load[T](c, p), nil
}

// Put is Set returning an error instead of panicking: as Get, and
// ErrReadOnly for a read-only view.
func (v View[T]) Put(x T, idx ...int) error {
	c := v.core()
	if c.readonly {
		return fmt.Errorf("memview: Put on a read-only View: %w", ErrReadOnly)
	}
	p, err := c.checkedAddr(idx)
	if err != nil {
		return err
	}
	*(*T)(p) = x
	return nil
}

// All iterates over the elements in C order (last index fastest), whatever
// the strides, yielding each index and value. The index slice is reused from
// one element to the next: copy it to keep it; changing it does not change
// the iteration. It panics as At does if the memory has been released.
func (v View[T]) All() iter.Seq2[[]int, T] {
	return func(yield func([]int, T) bool) {
		c := v.core()
		c.mustLive()
		var r rows
		if !r.start(c) {
			return
		}
		last := len(r.idx) - 1
		for {
			if last < 0 { // 0-d: one element
				yield(r.idx, load[T](c, c.base))
				return
			}
			for i := 0; i < r.n; i++ {
				r.idx[last] = i
				if !yield(r.idx, load[T](c, unsafe.Add(c.base, r.off+i*r.step))) {
					return
				}
			}
			if !r.next() {
				return
			}
		}
	}
}

// Apply replaces every element, in C order, with fn of its index and value,
// in place (the index slice is as in All). A read-only view wraps
// ErrReadOnly, a released array ErrReleased, the zero View ErrInvalid.
func (v View[T]) Apply(fn func(idx []int, x T) T) error {
	c := v.core()
	if c.readonly {
		return fmt.Errorf("memview: Apply on a read-only View: %w", ErrReadOnly)
	}
	if err := c.live(); err != nil {
		return err
	}
	var r rows
	if !r.start(c) {
		return nil
	}
	last := len(r.idx) - 1
	if last < 0 { // 0-d: one element
		*(*T)(c.base) = fn(r.idx, load[T](c, c.base))
		return nil
	}
	for {
		for i := 0; i < r.n; i++ {
			r.idx[last] = i
			p := unsafe.Add(c.base, r.off+i*r.step)
			*(*T)(p) = fn(r.idx, load[T](c, p))
		}
		if !r.next() {
			return nil
		}
	}
}

// load reads the element at p. A bool is read as its byte != 0, so that
// memory from other producers holding bytes other than 0 and 1 gives valid
// Go bools.
func load[T Element](c *viewCore, p unsafe.Pointer) T {
	var z T
	// The size test is a constant for each shape of T, so only the
	// one-byte instantiations test the flag.
	if unsafe.Sizeof(z) == 1 && c.boolean {
		b := *(*uint8)(p) != 0
		return *(*T)(unsafe.Pointer(&b))
	}
	return *(*T)(p)
}

// addr returns the address of the element at idx, panicking on a bad index,
// a zero View or released memory. It is small enough to be inlined, and
// does not keep idx, so callers' variadic slices stay on their stacks.
func (c *viewCore) addr(idx []int) unsafe.Pointer {
	if c == nil || len(idx) != len(c.shape) || c.buf == nil || c.buf.released.Load() {
		c.fail(idx)
	}
	off := 0
	for k, i := range idx {
		if uint(i) >= uint(c.shape[k]) {
			c.fail(idx)
		}
		off += i * c.strides[k]
	}
	return unsafe.Add(c.base, off)
}

// fail panics with what is wrong with idx or with the memory.
//
//go:noinline
func (c *viewCore) fail(idx []int) {
	if c == nil {
		c = zeroCore
	}
	if err := c.indexError(idx); err != nil {
		panic(err)
	}
	panic(c.liveError())
}

// failReadOnly panics with an error wrapping ErrReadOnly.
//
//go:noinline
func (c *viewCore) failReadOnly() {
	panic(fmt.Errorf("memview: Set on a read-only View: %w", ErrReadOnly))
}

// checkedAddr is addr returning errors instead of panicking.
func (c *viewCore) checkedAddr(idx []int) (unsafe.Pointer, error) {
	if err := c.indexError(idx); err != nil {
		return nil, err
	}
	if err := c.live(); err != nil {
		return nil, err
	}
	off := 0
	for k, i := range idx {
		off += i * c.strides[k]
	}
	return unsafe.Add(c.base, off), nil
}

// indexError describes what is wrong with idx, or returns nil. It does not
// keep idx.
func (c *viewCore) indexError(idx []int) error {
	if c.arr == nil {
		return fmt.Errorf("memview: use of the zero View (make one with NewView): %w", ErrInvalid)
	}
	if len(idx) != len(c.shape) {
		return fmt.Errorf("memview: %d indices for a View of %d dimensions (one per axis needed): %w", len(idx), len(c.shape), ErrIndex)
	}
	for k, i := range idx {
		if n := c.shape[k]; uint(i) >= uint(n) {
			return errorExact(ErrIndex, "memview: index %d is out of range for axis %d with size %d", i, k, n)
		}
	}
	return nil
}

// mustLive panics if the memory has gone back (or c is the zero View's).
func (c *viewCore) mustLive() {
	if c.buf == nil || c.buf.released.Load() {
		panic(c.liveError())
	}
}

// live returns an error if c's array is released (or c is the zero
// View's).
func (c *viewCore) live() error {
	if c.arr == nil || c.arr.Released() {
		return c.liveError()
	}
	return nil
}

// liveError describes a View whose array is gone.
func (c *viewCore) liveError() error {
	if c.arr == nil {
		return fmt.Errorf("memview: use of the zero View (make one with NewView): %w", ErrInvalid)
	}
	return fmt.Errorf("memview: use of a View of a released array: %w", ErrReleased)
}

// rows walks the rows (runs along the last axis) of a view in C order. idx
// is the index handed to callers; the walk counts in ctr, so callers may
// scribble on idx.
type rows struct {
	c       *viewCore
	idx     []int
	ctr     []int
	off     int // byte offset of the current row's first element
	n, step int // elements per row and their stride
}

// start prepares the first row; false for an empty view.
func (r *rows) start(c *viewCore) bool {
	for _, n := range c.shape {
		if n == 0 {
			return false
		}
	}
	nd := len(c.shape)
	r.c, r.idx, r.ctr, r.off = c, make([]int, nd), make([]int, nd), 0
	if nd > 0 {
		r.n, r.step = c.shape[nd-1], c.strides[nd-1]
	}
	return true
}

// next moves to the next row; false after the last.
func (r *rows) next() bool {
	c := r.c
	for k := len(r.ctr) - 2; k >= 0; k-- {
		r.ctr[k]++
		r.off += c.strides[k]
		if r.ctr[k] < c.shape[k] {
			copy(r.idx, r.ctr)
			return true
		}
		r.off -= c.strides[k] * c.shape[k]
		r.ctr[k] = 0
	}
	return false
}
