package memview

import (
	"fmt"
	"slices"
	"unsafe"
)

// ToContiguous copies the elements of src into dst in order, the equivalent
// of CPython's PyBuffer_ToContiguous: 'C' (last index fastest), 'F' (first
// index fastest) or 'A' ('F' if src is F-contiguous and not C-contiguous,
// else 'C': CPython copies the memory as it is when src is either). len(dst)
// must equal src.NBytes(), as CPython requires; a bad order or length wraps
// ErrInvalid. dst may alias src's memory: the copy is then made as if
// through a temporary.
func ToContiguous(dst []byte, src *Array, order byte) error {
	if err := src.hostAlive(); err != nil {
		return err
	}
	o, err := contiguousOrder(src.layout, order, "to contiguous")
	if err != nil {
		return err
	}
	if len(dst) != src.NBytes() {
		return fmt.Errorf("memview: to contiguous: %d-byte destination for %s %s (%d bytes): %w",
			len(dst), tuple(src.layout.Shape), src.dt, src.NBytes(), ErrInvalid)
	}
	if len(dst) == 0 {
		return nil
	}
	strides, _ := ContiguousStrides(src.layout.Shape, src.dt.Itemsize(), o)
	assign(unsafe.Pointer(unsafe.SliceData(dst)), strides, src.Pointer(), src.layout.Strides, src.layout.Shape, src.dt.Itemsize())
	return nil
}

// FromContiguous copies src, the elements of dst in order, into dst, the
// equivalent of CPython's PyBuffer_FromContiguous: order is 'C', 'F' or 'A'
// as for ToContiguous ('A' is decided by dst's layout). len(src) must equal
// dst.NBytes() (CPython copies min(len, view->len) bytes; a short or long
// source is refused here); a bad order or length wraps ErrInvalid, a
// read-only dst ErrReadOnly. src may alias dst's memory: the copy is then
// made as if through a temporary.
func FromContiguous(dst *Array, src []byte, order byte) error {
	if err := dst.hostAlive(); err != nil {
		return err
	}
	o, err := contiguousOrder(dst.layout, order, "from contiguous")
	if err != nil {
		return err
	}
	if dst.readonly {
		return fmt.Errorf("memview: from contiguous into a read-only array: %w", ErrReadOnly)
	}
	if len(src) != dst.NBytes() {
		return fmt.Errorf("memview: from contiguous: %d-byte source for %s %s (%d bytes): %w",
			len(src), tuple(dst.layout.Shape), dst.dt, dst.NBytes(), ErrInvalid)
	}
	if len(src) == 0 {
		return nil
	}
	strides, _ := ContiguousStrides(dst.layout.Shape, dst.dt.Itemsize(), o)
	assign(dst.Pointer(), dst.layout.Strides, unsafe.Pointer(unsafe.SliceData(src)), strides, dst.layout.Shape, dst.dt.Itemsize())
	return nil
}

// contiguousOrder resolves 'C', 'F' and 'A' (as CPython's contiguity
// helpers do) to 'C' or 'F' for a copy of l.
func contiguousOrder(l Layout, order byte, what string) (byte, error) {
	switch order {
	case 'C', 'F':
		return order, nil
	case 'A':
		if l.FContiguous() && !l.CContiguous() {
			return 'F', nil
		}
		return 'C', nil
	}
	return 0, fmt.Errorf("memview: %s: order %q: want 'C', 'F' or 'A': %w", what, order, ErrInvalid)
}

// orderStrides returns the strides of a dense copy of l in NumPy's order
// 'C', 'F', 'A' or 'K' (see Array.Copy).
func orderStrides(l Layout, order byte) ([]int, error) {
	switch order {
	case 'C', 'F':
	case 'A':
		order = 'C'
		if l.FContiguous() && !l.CContiguous() {
			order = 'F'
		}
	case 'K':
		return keepOrderStrides(l), nil
	default:
		return nil, fmt.Errorf("memview: copy order %q: want 'C', 'F', 'A' or 'K': %w", order, ErrInvalid)
	}
	return ContiguousStrides(l.Shape, l.Itemsize, order)
}

// keepOrderStrides is NumPy's order 'K' (PyArray_NewLikeArray with
// NPY_KEEPORDER): C strides for ndim <= 1 or a C-contiguous l, F strides for
// an F-contiguous one; otherwise the axes sorted stably by decreasing
// |stride| (PyArray_CreateSortedStridePerm) get dense strides, the last in
// that order the fastest.
func keepOrderStrides(l Layout) []int {
	nd := l.NDim()
	if nd <= 1 || l.CContiguous() {
		s, _ := ContiguousStrides(l.Shape, l.Itemsize, 'C')
		return s
	}
	if l.FContiguous() {
		s, _ := ContiguousStrides(l.Shape, l.Itemsize, 'F')
		return s
	}
	perm := make([]int, nd)
	for k := range perm {
		perm[k] = k
	}
	slices.SortStableFunc(perm, func(i, j int) int {
		return compareU(absU(l.Strides[j]), absU(l.Strides[i]))
	})
	strides := make([]int, nd)
	sd := l.Itemsize
	for k := nd - 1; k >= 0; k-- {
		ax := perm[k]
		strides[ax] = sd
		sd *= l.Shape[ax]
	}
	return strides
}
