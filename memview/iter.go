package memview

import (
	"cmp"
	"slices"
)

// The strided loops of this package address elements as a base pointer
// (element 0) plus a signed byte offset computed in int arithmetic, and form
// a pointer only for an element that exists: a validated layout guarantees it
// is inside the buffer, so no pointer ever points outside it (checkptr-safe).

// axis is one loop axis over two operands: its length and the byte strides
// of the destination and the source along it.
type axis struct{ n, d, s int }

// loop is a loop nest over a destination and a source: axes[len-1] is the
// innermost (the run), and dOff, sOff are the byte offsets, relative to
// element 0, of the first elements visited.
type loop struct {
	axes       []axis
	dOff, sOff int
}

// newLoop prepares a loop over shape for an operation whose result does not
// depend on the visiting order (a copy without overlap, a fill); src strides
// may be 0 (broadcasting). Axes of size 1 are dropped; axes with a negative
// dst stride are flipped (so are axes with dst stride 0 and a negative src
// stride); the axes are sorted by decreasing dst stride, then decreasing
// |src stride|, so the innermost is the fastest in dst; and adjacent axes
// that are contiguous in both operands are merged. A loop always has at least
// one axis (a single element is one axis of length 1). ok is false for an
// empty loop (some dim is 0).
func newLoop(shape, dst, src []int) (l loop, ok bool) {
	l.axes = make([]axis, 0, len(shape))
	for k, n := range shape {
		if n == 0 {
			return loop{}, false
		}
		if n == 1 {
			continue
		}
		a := axis{n, dst[k], src[k]}
		if a.d < 0 || (a.d == 0 && a.s < 0) {
			l.dOff += (n - 1) * a.d
			l.sOff += (n - 1) * a.s
			a.d, a.s = -a.d, -a.s
		}
		l.axes = append(l.axes, a)
	}
	slices.SortStableFunc(l.axes, func(a, b axis) int {
		if c := cmp.Compare(b.d, a.d); c != 0 {
			return c
		}
		return cmp.Compare(absU(b.s), absU(a.s))
	})
	// Merge axis k into axis k+1 (its inner neighbour) where both operands
	// step over axis k+1 exactly.
	for k := len(l.axes) - 2; k >= 0; k-- {
		o, in := l.axes[k], l.axes[k+1]
		if o.d == in.d*in.n && o.s == in.s*in.n {
			l.axes[k+1].n *= o.n
			l.axes = slices.Delete(l.axes, k, k+1)
		}
	}
	if len(l.axes) == 0 {
		l.axes = append(l.axes, axis{n: 1})
	}
	return l, true
}

// forEachOffset calls fn with the dst and src offsets of every position of
// the loop nest axes (outermost first), starting from dOff, sOff.
func forEachOffset(axes []axis, dOff, sOff int, fn func(dOff, sOff int)) {
	nd := len(axes)
	if nd == 0 {
		fn(dOff, sOff)
		return
	}
	var buf [8]int
	var idx []int
	if nd <= len(buf) {
		idx = buf[:nd]
	} else {
		idx = make([]int, nd)
	}
	last := axes[nd-1]
	for {
		d, s := dOff, sOff
		for range last.n {
			fn(d, s)
			d += last.d
			s += last.s
		}
		k := nd - 2
		for ; k >= 0; k-- {
			idx[k]++
			dOff += axes[k].d
			sOff += axes[k].s
			if idx[k] < axes[k].n {
				break
			}
			dOff -= axes[k].d * axes[k].n
			sOff -= axes[k].s * axes[k].n
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// selfOverlapFree reports whether no two positions of the dst side of axes
// (strides >= 0, as newLoop leaves them) address overlapping items of
// itemsize bytes. It is a sufficient test: sorted by stride, each stride must
// step over everything the faster axes reach.
func selfOverlapFree(axes []axis, itemsize int) bool {
	sorted := slices.Clone(axes)
	slices.SortFunc(sorted, func(a, b axis) int { return cmp.Compare(a.d, b.d) })
	extent := itemsize
	for _, a := range sorted {
		if a.n == 1 {
			continue
		}
		if a.d < extent {
			return false
		}
		extent += (a.n - 1) * a.d
	}
	return true
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
