package memview

// CContiguous reports whether the layout is C-contiguous, exactly as CPython's
// PyBuffer_IsContiguous(view, 'C'): true for an empty array; otherwise,
// walking axes from last to first with sd = itemsize, every dim > 1 must have
// stride sd, and sd is multiplied by the dim. Dims of size 1 are ignored, so
// shapes like [1 12 1] and [7 0 7] can be both C- and F-contiguous.
func (l Layout) CContiguous() bool {
	if l.Size() == 0 {
		return true
	}
	sd := l.Itemsize
	for k := len(l.Shape) - 1; k >= 0; k-- {
		n := l.Shape[k]
		if n > 1 && l.Strides[k] != sd {
			return false
		}
		sd *= n
	}
	return true
}

// FContiguous reports whether the layout is Fortran-contiguous, exactly as
// PyBuffer_IsContiguous(view, 'F'): as CContiguous, walking axes from first
// to last.
func (l Layout) FContiguous() bool {
	if l.Size() == 0 {
		return true
	}
	sd := l.Itemsize
	for k, n := range l.Shape {
		if n > 1 && l.Strides[k] != sd {
			return false
		}
		sd *= n
	}
	return true
}
