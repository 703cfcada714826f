package memview

import (
	"sort"
	"unsafe"
)

// The strided loops below address elements as a base pointer (element 0)
// plus a signed byte offset computed in int arithmetic, and form a pointer
// only for an element that exists: a validated layout guarantees it is inside
// the buffer, and no pointer ever points outside it (checkptr-safe).

// loopDims is a loop nest over up to two strided operands: shape and, per
// operand, strides and the byte offset of the first element visited.
type loopDims struct {
	shape      []int
	dst, src   []int // strides; src is nil for a one-operand loop
	dOff, sOff int
}

// newLoop prepares a loop over shape with one or two sets of strides for an
// operation whose result does not depend on the visiting order (a copy with
// no overlap, a fill): axes of size 1 are dropped, axes with a negative dst
// stride are flipped, the axes are sorted by decreasing |dst stride| (so the
// innermost is the fastest in memory) and adjacent axes that are contiguous
// in both operands are merged. It returns ok=false for an empty loop.
func newLoop(shape, dst, src []int) (loopDims, bool) {
	var l loopDims
	for k, n := range shape {
		if n == 0 {
			return l, false
		}
		if n == 1 {
			continue
		}
		ds, ss := dst[k], 0
		if src != nil {
			ss = src[k]
		}
		if ds < 0 || (ds == 0 && ss < 0) {
			l.dOff += (n - 1) * ds
			l.sOff += (n - 1) * ss
			ds, ss = -ds, -ss
		}
		l.shape = append(l.shape, n)
		l.dst = append(l.dst, ds)
		l.src = append(l.src, ss)
	}
	sort.Stable(byDstStride(l))
	// Merge axis k into axis k+1 (inner) where both operands allow it.
	for k := len(l.shape) - 2; k >= 0; k-- {
		n := l.shape[k+1]
		if l.dst[k] == l.dst[k+1]*n && l.src[k] == l.src[k+1]*n {
			l.shape[k+1] *= l.shape[k]
			l.shape = append(l.shape[:k], l.shape[k+1:]...)
			l.dst = append(l.dst[:k], l.dst[k+1:]...)
			l.src = append(l.src[:k], l.src[k+1:]...)
		}
	}
	if len(l.shape) == 0 { // a single element
		l.shape, l.dst, l.src = []int{1}, []int{0}, []int{0}
	}
	return l, true
}

// byDstStride sorts loop axes by decreasing |dst stride|, then |src stride|.
type byDstStride loopDims

func (b byDstStride) Len() int { return len(b.shape) }
func (b byDstStride) Less(i, j int) bool {
	if b.dst[i] != b.dst[j] {
		return b.dst[i] > b.dst[j] // dst strides are >= 0 here
	}
	return absU(b.src[i]) > absU(b.src[j])
}
func (b byDstStride) Swap(i, j int) {
	b.shape[i], b.shape[j] = b.shape[j], b.shape[i]
	b.dst[i], b.dst[j] = b.dst[j], b.dst[i]
	b.src[i], b.src[j] = b.src[j], b.src[i]
}

// outer calls fn with the dst and src offsets of the start of every run of
// the innermost axis, in loop order.
func (l loopDims) outer(fn func(dOff, sOff int)) {
	nd := len(l.shape) - 1
	if nd == 0 {
		fn(l.dOff, l.sOff)
		return
	}
	idx := make([]int, nd)
	dOff, sOff := l.dOff, l.sOff
	for {
		fn(dOff, sOff)
		k := nd - 1
		for ; k >= 0; k-- {
			idx[k]++
			dOff += l.dst[k]
			sOff += l.src[k]
			if idx[k] < l.shape[k] {
				break
			}
			dOff -= l.dst[k] * l.shape[k]
			sOff -= l.src[k] * l.shape[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// copyStrided copies the elements of a strided src to a strided dst of the
// same shape (src strides may be 0 for broadcasting). dst and src must not
// overlap, except exactly for a one-run contiguous copy (copy is memmove).
func copyStrided(dst unsafe.Pointer, dstStrides []int, src unsafe.Pointer, srcStrides []int, shape []int, itemsize int) {
	l, ok := newLoop(shape, dstStrides, srcStrides)
	if !ok {
		return
	}
	in := len(l.shape) - 1
	n, ds, ss := l.shape[in], l.dst[in], l.src[in]
	if ds == itemsize && ss == itemsize {
		run := n * itemsize
		l.outer(func(dOff, sOff int) {
			copy(unsafe.Slice((*byte)(unsafe.Add(dst, dOff)), run), unsafe.Slice((*byte)(unsafe.Add(src, sOff)), run))
		})
		return
	}
	l.outer(func(dOff, sOff int) {
		for i := 0; i < n; i++ {
			copyItem(unsafe.Add(dst, dOff+i*ds), unsafe.Add(src, sOff+i*ss), itemsize)
		}
	})
}

// copyItem copies one element of itemsize bytes.
func copyItem(d, s unsafe.Pointer, itemsize int) {
	switch itemsize {
	case 1:
		*(*uint8)(d) = *(*uint8)(s)
	case 2:
		*(*uint16)(d) = *(*uint16)(s)
	case 4:
		*(*uint32)(d) = *(*uint32)(s)
	case 8:
		*(*uint64)(d) = *(*uint64)(s)
	default:
		copy(unsafe.Slice((*byte)(d), itemsize), unsafe.Slice((*byte)(s), itemsize))
	}
}

// fillStrided writes item into every element of a strided array.
func fillStrided(dst unsafe.Pointer, strides, shape []int, item []byte) {
	l, ok := newLoop(shape, strides, nil)
	if !ok {
		return
	}
	itemsize := len(item)
	in := len(l.shape) - 1
	n, ds := l.shape[in], l.dst[in]
	if ds == itemsize {
		run := n * itemsize
		l.outer(func(dOff, _ int) {
			b := unsafe.Slice((*byte)(unsafe.Add(dst, dOff)), run)
			filled := copy(b, item)
			for filled < run {
				filled += copy(b[filled:], b[:filled])
			}
		})
		return
	}
	src := unsafe.Pointer(unsafe.SliceData(item))
	l.outer(func(dOff, _ int) {
		for i := 0; i < n; i++ {
			copyItem(unsafe.Add(dst, dOff+i*ds), src, itemsize)
		}
	})
}

// eachOffset calls fn with the byte offset (relative to element 0) of every
// element of shape/strides in C order, stopping at the first error.
func eachOffset(shape, strides []int, fn func(off int) error) error {
	for _, n := range shape {
		if n == 0 {
			return nil
		}
	}
	nd := len(shape)
	if nd == 0 {
		return fn(0)
	}
	idx := make([]int, nd)
	off := 0
	n, s := shape[nd-1], strides[nd-1]
	for {
		for i := 0; i < n; i++ {
			if err := fn(off + i*s); err != nil {
				return err
			}
		}
		k := nd - 2
		for ; k >= 0; k-- {
			idx[k]++
			off += strides[k]
			if idx[k] < shape[k] {
				break
			}
			off -= strides[k] * shape[k]
			idx[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}
