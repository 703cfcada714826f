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
	empty    bool // some axis has length 0

	// n1 and step1 are a 1-D view's length and stride, for At's inlined
	// path; n1 is 0 for other views and for bool ones (that path loads
	// elements as they are, not as load does).
	n1    uint
	step1 int
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
	c := &viewCore{
		arr:      a,
		buf:      a.buf,
		base:     a.Pointer(),
		shape:    append([]int{}, l.Shape...),
		strides:  append([]int{}, l.Strides...),
		readonly: a.readonly,
		boolean:  a.dt.SameLayout(Bool),
		empty:    l.Size() == 0,
	}
	if len(l.Shape) == 1 && !c.boolean {
		c.n1, c.step1 = uint(l.Shape[0]), l.Strides[0]
	}
	return View[T]{c}, nil
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
	return *(*T)(v.c.at(idx, (*viewCore).loadAddr))
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
	// All and the function it returns are small enough to be inlined
	// into a range loop over them, and the loop body (yield) into that,
	// so that the loop runs in the caller with no call per element.
	return func(yield func([]int, T) bool) {
		c := v.core()
		c.mustLive()
		if len(c.shape) == 1 {
			// An index of its own, which the compiler drops when the
			// loop body ignores it.
			var idx [1]int
			p, step := c.base, c.strides[0]
			for i := range c.shape[0] {
				idx[0] = i
				if !yield(idx[:], load[T](c, unsafe.Add(p, i*step))) {
					return
				}
			}
			return
		}
		var s rowsScratch
		r, ok := startRows(c, &s)
		if !ok {
			return
		}
		last := len(r.idx) - 1
		if last < 0 { // 0-d: one element
			yield(r.idx, load[T](c, c.base))
			return
		}
		for {
			p, n, step, slot := unsafe.Add(c.base, r.off), r.n, r.step, &r.idx[last]
			for i := range n {
				*slot = i
				if !yield(r.idx, load[T](c, unsafe.Add(p, i*step))) {
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
	// The walk is a closure called through callFunc, a call that the
	// inliner counts as cheap (it is through a parameter), which keeps
	// Apply small enough to be inlined. In the caller the closure, called
	// once, is inlined in turn, and a func literal fn into it: the caller
	// runs the loop itself, with no call per element, as for All.
	return callFunc(func() error {
		c := v.core()
		if err := c.applyError(); err != nil {
			return err
		}
		if len(c.shape) == 1 { // as in All
			var idx [1]int
			p, step := c.base, c.strides[0]
			for i := range c.shape[0] {
				idx[0] = i
				q := unsafe.Add(p, i*step)
				*(*T)(q) = fn(idx[:], load[T](c, q))
			}
			return nil
		}
		var s rowsScratch
		r, ok := startRows(c, &s)
		if !ok {
			return nil
		}
		last := len(r.idx) - 1
		if last < 0 { // 0-d: one element
			*(*T)(c.base) = fn(r.idx, load[T](c, c.base))
			return nil
		}
		for {
			p, n, step, slot := unsafe.Add(c.base, r.off), r.n, r.step, &r.idx[last]
			for i := range n {
				*slot = i
				q := unsafe.Add(p, i*step)
				*(*T)(q) = fn(r.idx, load[T](c, q))
			}
			if !r.next() {
				return nil
			}
		}
	})
}

// callFunc returns f(). See Apply for why.
func callFunc(f func() error) error { return f() }

// applyError returns why Apply may not write c's elements, or nil.
func (c *viewCore) applyError() error {
	if c.readonly {
		return fmt.Errorf("memview: Apply on a read-only View: %w", ErrReadOnly)
	}
	return c.live()
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

// at returns the address of the element at idx in a 1-D view that is not
// bool (n1 > 0), or what slow returns: loadAddr in At. Small enough to be
// inlined, and At with it, only because a call through a parameter (slow)
// weighs less with the inliner than a direct call. With the race detector
// the atomic load is a call, at would not be inlined, and idx would
// escape through slow: there it calls loadAddr, which does not keep idx.
func (c *viewCore) at(idx []int, slow func(*viewCore, []int) unsafe.Pointer) unsafe.Pointer {
	if raceEnabled {
		return c.loadAddr(idx)
	}
	if c != nil && len(idx) == 1 && uint(idx[0]) < c.n1 && !c.buf.released.Load() {
		return unsafe.Add(c.base, idx[0]*c.step1)
	}
	return slow(c, idx)
}

// boolBytes are the bytes of false and true.
var boolBytes = [2]byte{0, 1}

// loadAddr is addr for reading: in a bool view it returns the address of
// a byte 0 or 1 (in boolBytes) with the element's truth value, as load
// reads it, not the element's own.
func (c *viewCore) loadAddr(idx []int) unsafe.Pointer {
	p := c.addr(idx)
	if c.boolean {
		if *(*uint8)(p) != 0 {
			return unsafe.Pointer(&boolBytes[1])
		}
		return unsafe.Pointer(&boolBytes[0])
	}
	return p
}

// addr returns the address of the element at idx, panicking on a bad index,
// a zero View or released memory. It does not keep idx, so callers'
// variadic slices stay on their stacks.
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

// rowsScratch is room for the idx and ctr of a rows over up to 4
// dimensions: on the caller's stack, unless idx escapes.
type rowsScratch [8]int

// startRows returns a walk of c at its first row, keeping idx and ctr in
// s if they fit; false for an empty view. (A result, not a method setting
// *r: escape analysis would send s to the heap.)
func startRows(c *viewCore, s *rowsScratch) (rows, bool) {
	if c.empty {
		return rows{}, false
	}
	nd := len(c.shape)
	ix := s[:]
	if 2*nd > len(s) {
		ix = make([]int, 2*nd)
	}
	r := rows{c: c, idx: ix[:nd:nd], ctr: ix[nd : 2*nd : 2*nd]}
	if nd > 0 {
		r.n, r.step = c.shape[nd-1], c.strides[nd-1]
	}
	return r, true
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
