package memview

import "fmt"

// Transpose returns a view with the axes permuted: result axis k is a's axis
// axes[k]. No axes reverses the order (a.T). axes must be a permutation of
// 0..NDim()-1, negative axes counting from the end; otherwise the error wraps
// ErrInvalid.
func (a *Array) Transpose(axes ...int) (*Array, error) {
	if err := a.alive(); err != nil {
		return nil, err
	}
	nd := a.NDim()
	perm := make([]int, nd)
	if len(axes) == 0 {
		for k := range perm {
			perm[k] = nd - 1 - k
		}
	} else {
		if len(axes) != nd {
			return nil, fmt.Errorf("memview: axes don't match array: axes %s for an array of %d dimensions: %w", tuple(axes), nd, ErrInvalid)
		}
		seen := make([]bool, nd)
		for k, ax := range axes {
			if ax < -nd || ax >= nd {
				return nil, fmt.Errorf("memview: axis %d is out of bounds for array of dimension %d: %w", ax, nd, ErrInvalid)
			}
			if ax < 0 {
				ax += nd
			}
			if seen[ax] {
				return nil, fmt.Errorf("memview: repeated axis in transpose: axes %s repeat axis %d: %w", tuple(axes), ax, ErrInvalid)
			}
			seen[ax] = true
			perm[k] = ax
		}
	}
	l := a.Layout()
	for k, ax := range perm {
		l.Shape[k] = a.layout.Shape[ax]
		l.Strides[k] = a.layout.Strides[ax]
	}
	return a.view(l, a.readonly)
}
