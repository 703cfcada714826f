package memview

import (
	"fmt"
	"slices"
	"unsafe"
)

// Copy returns a deep copy of a in a new Go-owned, writable array from p (nil
// means DefaultPool()). order is 'C', 'F', or 'A'/'K' (F if a is F-contiguous
// and not C-contiguous, else C); another order wraps ErrInvalid.
func (a *Array) Copy(p *Pool, order byte) (*Array, error) {
	if err := a.hostAlive(); err != nil {
		return nil, err
	}
	switch order {
	case 'C', 'F':
	case 'A', 'K':
		order = 'C'
		if a.FContiguous() && !a.CContiguous() {
			order = 'F'
		}
	default:
		return nil, fmt.Errorf("memview: copy order %q: want 'C', 'F', 'A' or 'K': %w", order, ErrInvalid)
	}
	out, err := Empty(p, a.layout.Shape, a.dt, order)
	if err != nil {
		return nil, err
	}
	if err := CopyInto(out, a); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}

// CopyInto copies the elements of src into dst, which must have the same
// dtype (else ErrType) and be writable (else ErrReadOnly). src's shape must
// broadcast to dst's as in NumPy: aligned on the right, each src dim equal to
// dst's or 1, missing leading dims broadcast, extra leading src dims of size 1
// ignored; otherwise the error wraps ErrInvalid.
//
// The result is as if src were first copied to a temporary: when the byte
// ranges of src and dst intersect, the copy goes through one (except when
// both are C-contiguous with the same shape, where copy's memmove suffices).
func CopyInto(dst, src *Array) error {
	if err := dst.hostAlive(); err != nil {
		return err
	}
	if err := src.hostAlive(); err != nil {
		return err
	}
	if dst.dt != src.dt {
		return fmt.Errorf("memview: copy of %s into %s: %w", src.dt, dst.dt, ErrType)
	}
	if dst.readonly {
		return fmt.Errorf("memview: copy into a read-only array: %w", ErrReadOnly)
	}
	sStrides, err := broadcastStrides(src.layout, dst.layout.Shape)
	if err != nil {
		return err
	}
	if dst.Size() == 0 {
		return nil
	}
	itemsize := dst.dt.Itemsize()
	if dst.CContiguous() && src.CContiguous() && slices.Equal(dst.layout.Shape, src.layout.Shape) {
		n := dst.NBytes()
		copy(unsafe.Slice((*byte)(dst.Pointer()), n), unsafe.Slice((*byte)(src.Pointer()), n))
		return nil
	}
	sp := src.Pointer()
	if overlap(dst, src) {
		// Copy src to a C-contiguous temporary and broadcast from there.
		tmp := make([]byte, src.NBytes())
		tStrides, _ := ContiguousStrides(src.layout.Shape, itemsize, 'C')
		copyStrided(unsafe.Pointer(&tmp[0]), tStrides, sp, src.layout.Strides, src.layout.Shape, itemsize)
		tl := Layout{Shape: src.layout.Shape, Strides: tStrides, Itemsize: itemsize}
		sStrides, _ = broadcastStrides(tl, dst.layout.Shape)
		sp = unsafe.Pointer(&tmp[0])
	}
	copyStrided(dst.Pointer(), dst.layout.Strides, sp, sStrides, dst.layout.Shape, itemsize)
	return nil
}

// broadcastStrides returns strides that read src as an array of shape, NumPy
// style, with stride 0 on broadcast axes.
func broadcastStrides(src Layout, shape []int) ([]int, error) {
	sShape, sStrides := src.Shape, src.Strides
	for len(sShape) > len(shape) && sShape[0] == 1 {
		sShape, sStrides = sShape[1:], sStrides[1:]
	}
	if len(sShape) > len(shape) {
		return nil, fmt.Errorf("memview: could not broadcast input array from shape %v into shape %v: %w", src.Shape, shape, ErrInvalid)
	}
	out := make([]int, len(shape))
	lead := len(shape) - len(sShape)
	for k := lead; k < len(shape); k++ {
		n := sShape[k-lead]
		switch {
		case n == shape[k]:
			out[k] = sStrides[k-lead]
		case n == 1:
			out[k] = 0
		default:
			return nil, fmt.Errorf("memview: could not broadcast input array from shape %v into shape %v: %w", src.Shape, shape, ErrInvalid)
		}
	}
	return out, nil
}

// overlap reports whether the byte ranges reached by a and b intersect.
func overlap(a, b *Array) bool {
	if a.Size() == 0 || b.Size() == 0 {
		return false
	}
	alo, ahi := a.layout.Span()
	blo, bhi := b.layout.Span()
	pa, pb := uintptr(a.Pointer()), uintptr(b.Pointer())
	// Spans are inside their buffers, so these additions do not wrap.
	return pa+uintptr(ahi) > pb+uintptr(blo) && pb+uintptr(bhi) > pa+uintptr(alo)
}

// FillBytes writes item, the bytes of one element, into every element. A
// wrong length wraps ErrInvalid; a read-only array wraps ErrReadOnly.
// Contiguous runs are filled by doubling copies.
func (a *Array) FillBytes(item []byte) error {
	if err := a.hostAlive(); err != nil {
		return err
	}
	if len(item) != a.dt.Itemsize() {
		return fmt.Errorf("memview: fill with %d bytes for %s items of %d bytes: %w", len(item), a.dt, a.dt.Itemsize(), ErrInvalid)
	}
	if a.readonly {
		return fmt.Errorf("memview: fill of a read-only array: %w", ErrReadOnly)
	}
	fillStrided(a.Pointer(), a.layout.Strides, a.layout.Shape, item)
	return nil
}
