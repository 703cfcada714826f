package memview

import "fmt"

// BroadcastTo returns a read-only view of a with the given shape, as NumPy's
// broadcast_to: a's shape is aligned on the right, each of its dims equal to
// the new one or 1 (stride 0: the element repeats), missing leading dims
// broadcast. A shape a cannot broadcast to wraps ErrInvalid. It works on any
// device: no element is touched.
func (a *Array) BroadcastTo(shape []int) (*Array, error) {
	if err := a.alive(); err != nil {
		return nil, err
	}
	for _, n := range shape {
		if n < 0 {
			return nil, fmt.Errorf("memview: broadcast to shape %s: negative dimensions are not allowed: %w", tuple(shape), ErrInvalid)
		}
	}
	strides, err := broadcastStrides(a.layout, shape)
	if err != nil {
		return nil, err
	}
	l := Layout{Shape: append([]int{}, shape...), Strides: strides, Offset: a.layout.Offset, Itemsize: a.layout.Itemsize}
	if a.Size() == 0 {
		// Only a dim of 0 broadcasts from an empty array; the view is empty too.
		l.Offset = min(l.Offset, a.buf.Len())
	}
	return a.view(l, true)
}
