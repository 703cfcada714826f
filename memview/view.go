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
// while the Array is not released. At, Set and the iterators check (one
// atomic load) that the memory has not gone back and panic if it has; Get
// and Put also refuse a released Array. Copies of a View share everything.
//
// Indexes are as for Go slices: one per axis, from 0 to the axis length
// minus 1; negative indexes are out of range. At and Set panic on a bad
// index, like slice indexing, with an error value wrapping ErrIndex; Get
// and Put return it instead.
//
// Concurrent reads are safe; concurrent writes to the same element are a
// data race, as for a slice.
type View[T Element] struct {
	arr      *Array
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
	if dt := DTypeOf[T](); a.dt != dt {
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
			return View[T]{}, fmt.Errorf("memview: a View[%T] needs elements aligned to %d bytes; the array (offset %d, strides %v) has some that are not (read them with ItemBytes): %w",
				z, align, l.Offset, l.Strides, ErrInvalid)
		}
	}
	return View[T]{
		arr:      a,
		base:     a.Pointer(),
		shape:    append([]int{}, l.Shape...),
		strides:  append([]int{}, l.Strides...),
		readonly: a.readonly,
		boolean:  a.dt == Bool,
	}, nil
}

// Array returns the array v views.
func (v View[T]) Array() *Array { return v.arr }

// Shape returns a copy of the shape.
func (v View[T]) Shape() []int { return append([]int{}, v.shape...) }

// Strides returns a copy of the strides, in bytes.
func (v View[T]) Strides() []int { return append([]int{}, v.strides...) }

// NDim returns the number of dimensions.
func (v View[T]) NDim() int { return len(v.shape) }

// Len returns the number of elements: the product of the shape (1 for a 0-d
// view, 0 for the zero View).
func (v View[T]) Len() int {
	if v.arr == nil {
		return 0
	}
	n := 1
	for _, d := range v.shape {
		n *= d
	}
	return n
}

// ReadOnly reports whether Set and Put are refused.
func (v View[T]) ReadOnly() bool { return v.readonly }

// At returns the element at idx (one index per axis; none for a 0-d view).
// It panics on a bad index, a zero View or released memory.
func (v View[T]) At(idx ...int) T {
	return v.load(v.addr(idx))
}

// Set stores x in the element at idx. It panics as At does, and with an
// error wrapping ErrReadOnly on a read-only view.
func (v View[T]) Set(x T, idx ...int) {
	if v.readonly {
		panic(fmt.Errorf("memview: Set on a read-only View: %w", ErrReadOnly))
	}
	*(*T)(v.addr(idx)) = x
}

// Get is At returning an error instead of panicking: ErrIndex for a bad
// index, ErrReleased for a released array, ErrInvalid for the zero View.
func (v View[T]) Get(idx ...int) (T, error) {
	p, err := v.checkedAddr(idx)
	if err != nil {
		var z T
		return z, err
	}
	return v.load(p), nil
}

// Put is Set returning an error instead of panicking: as Get, and
// ErrReadOnly for a read-only view.
func (v View[T]) Put(x T, idx ...int) error {
	if v.readonly {
		return fmt.Errorf("memview: Put on a read-only View: %w", ErrReadOnly)
	}
	p, err := v.checkedAddr(idx)
	if err != nil {
		return err
	}
	*(*T)(p) = x
	return nil
}

// All iterates over the elements in C order (last index fastest), whatever
// the strides, yielding each index and value. The index slice is reused from
// one element to the next: copy it to keep it, and do not modify it. It
// panics as At does if the memory has been released.
func (v View[T]) All() iter.Seq2[[]int, T] {
	return func(yield func([]int, T) bool) {
		v.mustLive()
		v.each(func(idx []int, p unsafe.Pointer) bool {
			return yield(idx, v.load(p))
		})
	}
}

// Apply replaces every element, in C order, with fn of its index and value,
// in place (the index slice is as in All). A read-only view wraps
// ErrReadOnly, a released array ErrReleased, the zero View ErrInvalid.
func (v View[T]) Apply(fn func(idx []int, x T) T) error {
	if v.readonly {
		return fmt.Errorf("memview: Apply on a read-only View: %w", ErrReadOnly)
	}
	if err := v.live(); err != nil {
		return err
	}
	v.each(func(idx []int, p unsafe.Pointer) bool {
		*(*T)(p) = fn(idx, v.load(p))
		return true
	})
	return nil
}

// load reads the element at p. A bool is read as its byte != 0, so that
// memory from other producers holding bytes other than 0 and 1 gives valid
// Go bools.
func (v *View[T]) load(p unsafe.Pointer) T {
	if v.boolean {
		b := *(*uint8)(p) != 0
		return *(*T)(unsafe.Pointer(&b))
	}
	return *(*T)(p)
}

// addr returns the address of the element at idx, panicking on a bad index,
// a zero View or released memory. It does not keep idx, so callers'
// variadic slices stay on their stacks.
func (v *View[T]) addr(idx []int) unsafe.Pointer {
	if len(idx) != len(v.shape) || v.arr == nil {
		panic(v.ndimError(len(idx)))
	}
	off := 0
	for k, i := range idx {
		if n := v.shape[k]; uint(i) >= uint(n) {
			panic(indexError(i, k, n))
		}
		off += i * v.strides[k]
	}
	v.mustLive()
	return unsafe.Add(v.base, off)
}

// checkedAddr is addr returning errors instead of panicking.
func (v *View[T]) checkedAddr(idx []int) (unsafe.Pointer, error) {
	if len(idx) != len(v.shape) || v.arr == nil {
		return nil, v.ndimError(len(idx))
	}
	off := 0
	for k, i := range idx {
		if n := v.shape[k]; uint(i) >= uint(n) {
			return nil, indexError(i, k, n)
		}
		off += i * v.strides[k]
	}
	if err := v.live(); err != nil {
		return nil, err
	}
	return unsafe.Add(v.base, off), nil
}

// ndimError describes a wrong number of indexes (or the zero View).
func (v *View[T]) ndimError(n int) error {
	if v.arr == nil {
		return fmt.Errorf("memview: use of the zero View (make one with NewView): %w", ErrInvalid)
	}
	return fmt.Errorf("memview: %d indices for a View of %d dimensions (one per axis needed): %w", n, len(v.shape), ErrIndex)
}

// indexError describes index i out of range for axis k of length n.
func indexError(i, k, n int) error {
	return errorExact(ErrIndex, "memview: index %d is out of range for axis %d with size %d", i, k, n)
}

// mustLive panics if the memory has gone back (or v is the zero View).
func (v *View[T]) mustLive() {
	if v.arr == nil || v.arr.buf.Released() {
		panic(v.liveError())
	}
}

// live returns an error if v's array is released (or v is the zero View).
func (v *View[T]) live() error {
	if v.arr == nil || v.arr.Released() {
		return v.liveError()
	}
	return nil
}

// liveError describes a View whose array is gone.
func (v *View[T]) liveError() error {
	if v.arr == nil {
		return fmt.Errorf("memview: use of the zero View (make one with NewView): %w", ErrInvalid)
	}
	return fmt.Errorf("memview: use of a View of a released array: %w", ErrReleased)
}

// each calls fn with the index and address of every element in C order,
// until fn returns false. The index passed is fn's to read until it returns;
// the loop counts in its own.
func (v *View[T]) each(fn func(idx []int, p unsafe.Pointer) bool) {
	nd := len(v.shape)
	for _, n := range v.shape {
		if n == 0 {
			return
		}
	}
	idx := make([]int, nd)
	if nd == 0 {
		fn(idx, v.base)
		return
	}
	ctr := make([]int, nd)
	last := nd - 1
	n, s := v.shape[last], v.strides[last]
	off := 0 // of ctr's row start
	for {
		copy(idx, ctr)
		for i := 0; i < n; i++ {
			idx[last] = i
			if !fn(idx, unsafe.Add(v.base, off+i*s)) {
				return
			}
		}
		k := last - 1
		for ; k >= 0; k-- {
			ctr[k]++
			off += v.strides[k]
			if ctr[k] < v.shape[k] {
				break
			}
			off -= v.strides[k] * v.shape[k]
			ctr[k] = 0
		}
		if k < 0 {
			return
		}
	}
}
