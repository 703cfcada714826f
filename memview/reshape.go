package memview

import "fmt"

// errReshapeCopy is returned when a reshape cannot be a view.
var errReshapeCopy = errorExact(ErrInvalid, "memview: reshape of a non-contiguous view needs a copy; copy the array first")

// Reshape returns a view with a new shape of the same size, in C order. One
// dim may be -1 and is inferred. Sizes that do not match wrap ErrInvalid.
//
// Reshape never copies: it returns a view whenever NumPy's reshape (C order)
// would, that is when a is C-contiguous or when NumPy's
// _attempt_nocopy_reshape succeeds (axes of size 1 are ignored, and each group
// of old axes that is merged or split must be contiguous within itself).
// Otherwise the error wraps ErrInvalid and reads "memview: reshape of a
// non-contiguous view needs a copy; copy the array first".
func (a *Array) Reshape(shape ...int) (*Array, error) {
	if err := a.alive(); err != nil {
		return nil, err
	}
	newShape, err := resolveShape(shape, a.Size(), a.layout.Shape)
	if err != nil {
		return nil, err
	}
	var strides []int
	if a.CContiguous() {
		strides, err = ContiguousStrides(newShape, a.dt.Itemsize(), 'C')
		if err != nil {
			return nil, err
		}
	} else if strides = nocopyReshape(a.layout, newShape); strides == nil {
		return nil, errReshapeCopy
	}
	return a.view(Layout{Shape: newShape, Strides: strides, Offset: a.layout.Offset, Itemsize: a.layout.Itemsize}, a.readonly)
}

// resolveShape checks a requested shape against size elements and fills in
// one -1.
func resolveShape(shape []int, size int, old []int) ([]int, error) {
	if len(shape) > MaxNDim {
		return nil, fmt.Errorf("memview: reshape to %d dimensions (at most %d): %w", len(shape), MaxNDim, ErrInvalid)
	}
	out := append([]int{}, shape...)
	unknown, known := -1, 1
	for k, n := range shape {
		switch {
		case n == -1 && unknown >= 0:
			return nil, fmt.Errorf("memview: reshape to %s: can only specify one unknown dimension: %w", tuple(shape), ErrInvalid)
		case n == -1:
			unknown = k
		case n < 0:
			return nil, fmt.Errorf("memview: reshape to %s: negative dimensions are not allowed: %w", tuple(shape), ErrInvalid)
		default:
			var ok bool
			if known, ok = mulInt(known, n); !ok {
				return nil, fmt.Errorf("memview: reshape to %s: shape is too large: %w", tuple(shape), ErrInvalid)
			}
		}
	}
	if unknown >= 0 {
		if known == 0 || size%known != 0 {
			return nil, fmt.Errorf("memview: cannot reshape array of size %d into shape %s: %w", size, tuple(shape), ErrInvalid)
		}
		out[unknown] = size / known
	} else if known != size {
		return nil, fmt.Errorf("memview: cannot reshape array of size %d into shape %s (the array has shape %s): %w", size, tuple(shape), tuple(old), ErrInvalid)
	}
	return out, nil
}

// nocopyReshape is NumPy's _attempt_nocopy_reshape for C order: it returns
// strides that give newShape over the same elements as l without moving data,
// or nil if there are none. l must be non-empty with Size() equal to the
// product of newShape.
func nocopyReshape(l Layout, newShape []int) []int {
	// Axes of size 1 have no effect on the element order; drop them.
	var oldDims, oldStrides []int
	for k, n := range l.Shape {
		if n != 1 {
			oldDims = append(oldDims, n)
			oldStrides = append(oldStrides, l.Strides[k])
		}
	}
	newStrides := make([]int, len(newShape))
	// [oi, oj) and [ni, nj) are the old and new axis groups worked on: groups
	// with equal products, merged (old) and split (new) in place.
	oi, oj, ni, nj := 0, 1, 0, 1
	for ni < len(newShape) && oi < len(oldDims) {
		np, op := newShape[ni], oldDims[oi]
		for np != op {
			if np < op {
				np *= newShape[nj] // trailing 1s are handled below
				nj++
			} else {
				op *= oldDims[oj]
				oj++
			}
		}
		// The old axes of the group must be contiguous among themselves.
		for ok := oi; ok < oj-1; ok++ {
			if oldStrides[ok] != oldDims[ok+1]*oldStrides[ok+1] {
				return nil
			}
		}
		// The new axes of the group get C strides ending in the group's
		// innermost old stride.
		newStrides[nj-1] = oldStrides[oj-1]
		for nk := nj - 1; nk > ni; nk-- {
			newStrides[nk-1] = newStrides[nk] * newShape[nk]
		}
		ni = nj
		nj++
		oi = oj
		oj++
	}
	// Strides of trailing 1s in the new shape.
	last := l.Itemsize
	if ni >= 1 {
		last = newStrides[ni-1]
	}
	for nk := ni; nk < len(newShape); nk++ {
		newStrides[nk] = last
	}
	return newStrides
}
