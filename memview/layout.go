package memview

import (
	"fmt"
	"math"
)

// MaxNDim is the largest number of dimensions a Layout may have (CPython's
// PyBUF_MAX_NDIM).
const MaxNDim = 64

// Layout is shape, signed byte strides and the byte offset of element 0
// within a buffer.
//
// The element at index (i0, i1, ...) lives at byte Offset + Σ ik*Strides[k]
// of the buffer. A negative stride walks backwards from element 0, so a
// reversed view is element 0 at the far end plus negative strides; it is never
// made by copying.
type Layout struct {
	Shape    []int
	Strides  []int // signed, in bytes
	Offset   int   // byte offset of element 0 from the buffer start
	Itemsize int
}

// errInvalidLayout is the ErrInvalid variant that ends layout messages.
var errInvalidLayout = &exactError{msg: "invalid layout", base: ErrInvalid}

// NewLayout validates a layout against a buffer of extent bytes, as
// verify_structure in the CPython buffer-protocol documentation does, except
// that neither the offset nor the strides need be multiples of the itemsize.
// It checks: itemsize > 0, 0 <= extent, ndim <= MaxNDim, len(strides) ==
// len(shape), every dim >= 0, no overflow of the element count, the byte size
// or the extent; then, for a non-empty array, that every element lies in the
// buffer: offset+imin >= 0 and offset+imax+itemsize <= extent (imin and imax
// being the lowest and highest byte reached relative to element 0); for an
// empty array (some dim 0) only 0 <= offset <= extent. A 0-d layout (scalar)
// needs 0 <= offset and offset+itemsize <= extent.
//
// nil (or empty) strides with ndim > 0 mean C-contiguous strides. The result
// holds copies of the slices. Errors wrap ErrInvalid.
func NewLayout(shape, strides []int, offset, itemsize, extent int) (Layout, error) {
	return newLayout(shape, strides, offset, itemsize, extent, nil)
}

// newLayout is NewLayout, with the copies of shape and strides in store when
// it has room for both (2*len(shape) ints), else newly allocated.
func newLayout(shape, strides []int, offset, itemsize, extent int, store []int) (Layout, error) {
	l := Layout{Offset: offset, Itemsize: itemsize}
	fail := func(format string, args ...any) (Layout, error) {
		prefix := fmt.Sprintf("memview: layout shape %s strides %s offset %d", tuple(shape), tuple(strides), offset)
		return Layout{}, fmt.Errorf("%s %s: %w", prefix, fmt.Sprintf(format, args...), errInvalidLayout)
	}
	switch {
	case itemsize <= 0:
		return fail("has itemsize %d", itemsize)
	case extent < 0:
		return fail("has a negative buffer size %d", extent)
	case len(shape) > MaxNDim:
		return fail("has %d dimensions (at most %d)", len(shape), MaxNDim)
	}
	for k, n := range shape {
		if n < 0 {
			return fail("has a negative dimension %d on axis %d", n, k)
		}
	}
	if len(strides) == 0 && len(shape) > 0 {
		s, err := ContiguousStrides(shape, itemsize, 'C')
		if err != nil {
			return fail("is too large for C-contiguous strides")
		}
		strides = s
	}
	if len(strides) != len(shape) {
		return fail("has %d strides for %d dimensions", len(strides), len(shape))
	}
	// The element count and byte size of the nonzero dims must fit in an int,
	// as NumPy requires even for an empty array.
	count, empty := 1, false
	for _, n := range shape {
		if n == 0 {
			empty = true
			continue
		}
		c, ok := mulInt(count, n)
		if !ok {
			return fail("has more than %d elements", math.MaxInt)
		}
		count = c
	}
	if _, ok := mulInt(count, itemsize); !ok {
		return fail("has more than %d bytes", math.MaxInt)
	}
	if n := len(shape); cap(store) >= 2*n {
		// full slice expressions: an append to one never writes into the other
		l.Shape = append(store[:0:n], shape...)
		l.Strides = append(store[n:n:2*n], strides...)
	} else {
		l.Shape = append([]int{}, shape...)
		l.Strides = append([]int{}, strides...)
	}
	if empty {
		if offset < 0 || offset > extent {
			return fail("lies outside a %d-byte buffer", extent)
		}
		return l, nil
	}
	imin, imax, ok := reach(shape, strides)
	if !ok {
		return fail("reaches beyond %d bytes", math.MaxInt)
	}
	lo, ok1 := addInt(offset, imin)
	hi, ok2 := addInt(offset, imax)
	if ok2 {
		hi, ok2 = addInt(hi, itemsize)
	}
	switch {
	case !ok1 || lo < 0:
		if !ok1 {
			return fail("reaches below byte 0 of a %d-byte buffer", extent)
		}
		return fail("reaches byte %d of a %d-byte buffer", lo, extent)
	case !ok2 || hi > extent:
		if !ok2 {
			return fail("reaches beyond byte %d of a %d-byte buffer", math.MaxInt, extent)
		}
		return fail("reaches byte %d of a %d-byte buffer", hi, extent)
	}
	return l, nil
}

// reach returns the lowest (imin <= 0) and highest (imax >= 0) byte offsets of
// an element start relative to element 0 for a non-empty shape, and false on
// overflow.
func reach(shape, strides []int) (imin, imax int, ok bool) {
	for k, n := range shape {
		d, ok := mulInt(strides[k], n-1)
		if !ok {
			return 0, 0, false
		}
		if d < 0 {
			imin, ok = addInt(imin, d)
		} else {
			imax, ok = addInt(imax, d)
		}
		if !ok {
			return 0, 0, false
		}
	}
	return imin, imax, true
}

// ContiguousStrides returns the strides of a contiguous array of shape in
// order 'C' (last axis fastest) or 'F' (first axis fastest). As in NumPy, a
// dim of size 0 counts as 1 when it scales the next stride. A bad order,
// shape or itemsize, or an overflow, wraps ErrInvalid.
func ContiguousStrides(shape []int, itemsize int, order byte) ([]int, error) {
	if order != 'C' && order != 'F' {
		return nil, fmt.Errorf("memview: order %q: want 'C' or 'F': %w", order, ErrInvalid)
	}
	if itemsize <= 0 {
		return nil, fmt.Errorf("memview: itemsize %d: %w", itemsize, ErrInvalid)
	}
	strides := make([]int, len(shape))
	sd := itemsize
	for j := range shape {
		k := j
		if order == 'C' {
			k = len(shape) - 1 - j
		}
		n := shape[k]
		if n < 0 {
			return nil, fmt.Errorf("memview: negative dimensions are not allowed: shape %s: %w", tuple(shape), ErrInvalid)
		}
		strides[k] = sd
		if n > 0 {
			var ok bool
			if sd, ok = mulInt(sd, n); !ok {
				return nil, fmt.Errorf("memview: shape %s with itemsize %d overflows: %w", tuple(shape), itemsize, ErrInvalid)
			}
		}
	}
	return strides, nil
}

// NDim returns the number of dimensions.
func (l Layout) NDim() int { return len(l.Shape) }

// Size returns the number of elements: the product of the shape (1 for ndim 0).
func (l Layout) Size() int {
	n := 1
	for _, d := range l.Shape {
		n *= d
	}
	return n
}

// NBytes returns Size()*Itemsize.
func (l Layout) NBytes() int { return l.Size() * l.Itemsize }

// Span returns the byte range [lo, hi) reachable from element 0, relative to
// it (lo <= 0): (0, 0) when Size() == 0, (0, Itemsize) for ndim 0.
func (l Layout) Span() (lo, hi int) {
	if l.Size() == 0 {
		return 0, 0
	}
	imin, imax, _ := reach(l.Shape, l.Strides)
	return imin, imax + l.Itemsize
}
