package memview

import (
	"fmt"
	"runtime"
	"slices"
	"unsafe"
)

// Copy returns a deep copy of a in a new Go-owned, writable array from p (nil
// means DefaultPool()), of item type a.DType().Normal() (the same layout,
// spelled as memview spells new arrays), laid out as NumPy's a.copy(order)
// lays it out:
//
//   - 'C': C-contiguous; 'F': Fortran-contiguous;
//   - 'A': 'F' if a is F-contiguous and not C-contiguous, else 'C';
//   - 'K': as close to a's memory order as possible: 'C' if a has at most one
//     dimension or is C-contiguous, else 'F' if it is F-contiguous, else
//     dense with positive strides and the axes in a's order of decreasing
//     |stride| (a stable sort: ties keep their axis order; broadcast axes,
//     stride 0, become the fastest).
//
// Another order wraps ErrInvalid. As for Empty, the strides of an array with
// no elements are those of ContiguousStrides (NumPy 2 gives such arrays zero
// strides).
func (a *Array) Copy(p *Pool, order byte) (*Array, error) {
	if err := a.hostAlive(); err != nil {
		return nil, err
	}
	strides, err := orderStrides(a.layout, order)
	if err != nil {
		return nil, err
	}
	buf, err := newBuffer(p, a.NBytes())
	if err != nil {
		return nil, errAlloc(a.NBytes(), a.layout.Shape, a.dt, err)
	}
	out, err := NewArray(buf, a.dt.Normal(), a.layout.Shape, strides, 0, false)
	if rerr := buf.Release(); err == nil && rerr != nil {
		_ = out.Release()
		err = rerr
	}
	if err != nil {
		return nil, err
	}
	copyStrided(out.Pointer(), strides, a.Pointer(), a.layout.Strides, a.layout.Shape, a.dt.Itemsize())
	return out, nil
}

// CopyInto copies the elements of src into dst, which must have the same
// dtype (else ErrType) and be writable (else ErrReadOnly). src's shape must
// broadcast to dst's as in NumPy's copyto: aligned on the right, each src dim
// equal to dst's or 1, missing leading dims broadcast, extra leading src dims
// of size 1 ignored; otherwise the error wraps ErrInvalid.
//
// The result is as if src were first copied to a temporary, also when src
// and dst are views of one buffer that overlap. Only the bytes of dst's
// fields are written (DType.FieldRuns): a record's gaps may be other fields
// of the same memory.
func CopyInto(dst, src *Array) error {
	if err := checkCopy(dst, src); err != nil {
		return err
	}
	sStrides, err := broadcastStrides(src.layout, dst.layout.Shape)
	if err != nil {
		return err
	}
	assignItems(dst.dt, dst.Pointer(), dst.layout.Strides, src.Pointer(), sStrides, dst.layout.Shape)
	return nil
}

// CopyData copies the elements of src into dst, the equivalent of CPython's
// PyObject_CopyData: element (i, j, ...) of src to element (i, j, ...) of
// dst, whatever the memory order of either. Unlike CopyInto it does not
// broadcast: the shapes must be equal (else ErrInvalid). The dtypes must be
// equal (else ErrType; CPython copies raw items of any format) and dst
// writable (else ErrReadOnly). Overlapping views of one buffer are copied as
// if through a temporary; only the bytes of fields are written, as in
// CopyInto.
func CopyData(dst, src *Array) error {
	if err := checkCopy(dst, src); err != nil {
		return err
	}
	if !slices.Equal(dst.layout.Shape, src.layout.Shape) {
		return fmt.Errorf("memview: copy data of shape %s into shape %s: %w", tuple(src.layout.Shape), tuple(dst.layout.Shape), ErrInvalid)
	}
	assignItems(dst.dt, dst.Pointer(), dst.layout.Strides, src.Pointer(), src.layout.Strides, dst.layout.Shape)
	return nil
}

// checkCopy checks what every copy between arrays needs.
func checkCopy(dst, src *Array) error {
	if err := dst.hostAlive(); err != nil {
		return err
	}
	if err := src.hostAlive(); err != nil {
		return err
	}
	if !dst.dt.SameLayout(src.dt) {
		return fmt.Errorf("memview: copy of %s into %s: %w", src.dt, dst.dt, ErrType)
	}
	if dst.readonly {
		return fmt.Errorf("memview: copy into a read-only array: %w", ErrReadOnly)
	}
	return nil
}

// assign copies src (strides sStrides, 0 on broadcast axes) into dst of
// shape as if through a temporary: when the bytes the two reach intersect,
// it goes through one, unless the copy is one contiguous run in both (copy
// is a memmove) or dst and src are the same view.
func assign(dst unsafe.Pointer, dStrides []int, src unsafe.Pointer, sStrides []int, shape []int, itemsize int) {
	if !spansIntersect(dst, dStrides, src, sStrides, shape, itemsize) {
		copyStrided(dst, dStrides, src, sStrides, shape, itemsize)
		return
	}
	if dst == src && slices.Equal(dStrides, sStrides) {
		return // every item onto itself
	}
	if l, _ := newLoop(shape, dStrides, sStrides); len(l.axes) == 1 && l.axes[0].d == itemsize && l.axes[0].s == itemsize {
		memmove(unsafe.Add(dst, l.dOff), unsafe.Add(src, l.sOff), l.axes[0].n*itemsize)
		return
	}
	// Gather the distinct items of src once, laid out in dst's memory order,
	// then copy (and broadcast) from there.
	tShape, tStrides, n := tempLayout(shape, dStrides, sStrides, itemsize)
	withTemp(n, func(t unsafe.Pointer) {
		copyStrided(t, tStrides, src, sStrides, tShape, itemsize)
		copyStrided(dst, dStrides, t, tStrides, shape, itemsize)
	})
}

// Temporaries of tempMmapBytes or more are mapped from tempAlloc, off the Go
// heap, and returned to the system as soon as the copy is done.
const tempMmapBytes = 1 << 20

var tempAlloc MmapAllocator

// withTemp calls fn with n bytes of scratch memory.
func withTemp(n int, fn func(t unsafe.Pointer)) {
	if n >= tempMmapBytes {
		if b, err := tempAlloc.Allocate(n); err == nil {
			defer func() { _ = tempAlloc.Free(b) }()
			fn(unsafe.Pointer(unsafe.SliceData(b)))
			return
		}
	}
	tmp := make([]byte, n)
	fn(unsafe.Pointer(unsafe.SliceData(tmp)))
	runtime.KeepAlive(tmp)
}

// tempLayout returns the shape, strides and size of a dense temporary
// holding the items a copy from strides src over shape reads: axes on which
// src does not move (broadcast) have length 1 in it and stride 0 for reading
// it back; the others are ordered as in dst (by decreasing |dst stride|).
func tempLayout(shape, dst, src []int, itemsize int) (tShape, tStrides []int, nbytes int) {
	nd := len(shape)
	tShape = make([]int, nd)
	tStrides = make([]int, nd)
	perm := make([]int, nd)
	for k := range perm {
		perm[k] = k
		tShape[k] = shape[k]
		if src[k] == 0 {
			tShape[k] = 1
		}
	}
	slices.SortStableFunc(perm, func(i, j int) int {
		return compareU(absU(dst[j]), absU(dst[i]))
	})
	nbytes = itemsize
	for k := nd - 1; k >= 0; k-- {
		ax := perm[k]
		if tShape[ax] > 1 {
			tStrides[ax] = nbytes
			nbytes *= tShape[ax]
		}
	}
	return tShape, tStrides, nbytes
}

// spansIntersect reports whether the bytes reached by a copy over shape
// from src (strides sStrides) to dst (strides dStrides) intersect.
func spansIntersect(dst unsafe.Pointer, dStrides []int, src unsafe.Pointer, sStrides []int, shape []int, itemsize int) bool {
	for _, n := range shape {
		if n == 0 {
			return false
		}
	}
	dlo, dhi, _ := reach(shape, dStrides)
	slo, shi, _ := reach(shape, sStrides)
	pd, ps := uintptr(dst), uintptr(src)
	// Validated layouts lie inside their buffers, so these do not wrap.
	return pd+uintptr(dhi+itemsize) > ps+uintptr(slo) && ps+uintptr(shi+itemsize) > pd+uintptr(dlo)
}

// broadcastStrides returns strides that read src as an array of shape, NumPy
// style, with stride 0 on broadcast axes.
func broadcastStrides(src Layout, shape []int) ([]int, error) {
	sShape, sStrides := src.Shape, src.Strides
	for len(sShape) > len(shape) && sShape[0] == 1 {
		sShape, sStrides = sShape[1:], sStrides[1:]
	}
	if len(sShape) > len(shape) {
		return nil, fmt.Errorf("memview: could not broadcast input array from shape %s into shape %s: %w", npShape(src.Shape), npShape(shape), ErrInvalid)
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
			return nil, fmt.Errorf("memview: could not broadcast input array from shape %s into shape %s: %w", npShape(src.Shape), npShape(shape), ErrInvalid)
		}
	}
	return out, nil
}

// FillBytes writes item, the bytes of one element, into every element: the
// bytes of its fields (DType.FieldRuns), leaving a record's gaps as they
// are. A wrong length wraps ErrInvalid; a read-only array wraps ErrReadOnly.
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
	v := slices.Clone(item) // item may alias the array
	zero := make([]int, a.NDim())
	if runs := a.dt.FieldRuns(); runs != nil {
		copyRuns(a.Pointer(), a.layout.Strides, unsafe.Pointer(unsafe.SliceData(v)), zero, a.layout.Shape, runs)
	} else {
		copyStrided(a.Pointer(), a.layout.Strides, unsafe.Pointer(unsafe.SliceData(v)), zero, a.layout.Shape, len(v))
	}
	runtime.KeepAlive(v)
	return nil
}
