package memview

import (
	"fmt"
	"math"
)

// IndexKind says what an Index item is.
type IndexKind uint8

// The kinds of basic-indexing items.
const (
	IndexInt      IndexKind = iota // a[i]: selects one position and drops the axis
	IndexSlice                     // a[start:stop:step]
	IndexEllipsis                  // a[...]: as many full slices as needed
	IndexNewAxis                   // a[None]: inserts an axis of size 1
)

// Index is one item of a basic-indexing key.
type Index struct {
	Kind              IndexKind // IndexInt, IndexSlice, IndexEllipsis, IndexNewAxis
	I                 int       // for IndexInt; negative counts from the end
	Start, Stop, Step int       // for IndexSlice, Python semantics
	HasStart, HasStop bool      // false means None (Step 0 means None → 1)
	// HasStep marks Step as given even when it is 0, so that a zero step is
	// refused (as Python does) instead of meaning None. Slice sets it.
	HasStep bool
}

// Int returns the index item i.
func Int(i int) Index { return Index{Kind: IndexInt, I: i} }

// Slice returns the slice item start:stop:step, all given. A zero step is
// refused by Array.Index.
func Slice(start, stop, step int) Index {
	return Index{Kind: IndexSlice, Start: start, Stop: stop, Step: step, HasStart: true, HasStop: true, HasStep: true}
}

// SliceStep returns the slice item ::step (start and stop None).
func SliceStep(step int) Index {
	return Index{Kind: IndexSlice, Step: step, HasStep: true}
}

// Full returns the slice item ':'.
func Full() Index { return Index{Kind: IndexSlice} }

// Ellipsis returns the item '...'.
func Ellipsis() Index { return Index{Kind: IndexEllipsis} }

// NewAxis returns the item None (np.newaxis).
func NewAxis() Index { return Index{Kind: IndexNewAxis} }

// String writes the item as Python would.
func (x Index) String() string {
	switch x.Kind {
	case IndexInt:
		return fmt.Sprint(x.I)
	case IndexEllipsis:
		return "..."
	case IndexNewAxis:
		return "None"
	case IndexSlice:
		s := ""
		if x.HasStart {
			s += fmt.Sprint(x.Start)
		}
		s += ":"
		if x.HasStop {
			s += fmt.Sprint(x.Stop)
		}
		if x.HasStep || x.Step != 0 {
			s += fmt.Sprintf(":%d", x.Step)
		}
		return s
	}
	return fmt.Sprintf("Index(kind %d)", x.Kind)
}

// SliceIndices resolves a slice against an axis of length n exactly as
// Python's slice.indices(n), and returns the start, step and number of
// selected positions. A zero step wraps ErrInvalid.
func (x Index) SliceIndices(n int) (start, step, length int, err error) {
	step = x.Step
	if step == 0 {
		if x.HasStep {
			return 0, 0, 0, fmt.Errorf("memview: slice %s: slice step cannot be zero: %w", x, ErrInvalid)
		}
		step = 1
	}
	if step == math.MinInt {
		step = -math.MaxInt // same positions for any length that fits in memory
	}
	lower, upper := 0, n
	if step < 0 {
		lower, upper = -1, n-1
	}
	clamp := func(v int, given bool, dflt int) int {
		if !given {
			return dflt
		}
		if v < 0 {
			v += n
			if v < lower {
				v = lower
			}
		} else if v > upper {
			v = upper
		}
		return v
	}
	start, stop := lower, upper
	if step < 0 {
		start, stop = upper, lower
	}
	start = clamp(x.Start, x.HasStart, start)
	stop = clamp(x.Stop, x.HasStop, stop)
	switch {
	case step < 0 && stop < start:
		length = (start-stop-1)/(-step) + 1
	case step > 0 && start < stop:
		length = (stop-start-1)/step + 1
	}
	return start, step, length, nil
}

// Index applies a basic-indexing key with NumPy's exact semantics and returns
// a view sharing a's buffer (read-only iff a is):
//   - an int selects one position and drops the axis; negative counts from
//     the end; out of range wraps ErrIndex ("index 5 is out of bounds for
//     axis 0 with size 4");
//   - a slice follows Python's slice.indices; a negative step gives a
//     negative stride and moves the offset to the first selected element;
//   - one Ellipsis stands for as many full slices as needed (two wrap
//     ErrIndex); missing trailing items are full slices;
//   - NewAxis inserts a dim of size 1 with stride 0;
//   - more int and slice items than dimensions wrap ErrIndex.
//
// An empty result keeps a valid offset (within the buffer or at its end).
func (a *Array) Index(idx ...Index) (*Array, error) {
	if err := a.alive(); err != nil {
		return nil, err
	}
	l, err := a.layout.index(idx)
	if err != nil {
		return nil, err
	}
	return a.view(l, a.readonly)
}

// index computes the layout selected by a basic-indexing key.
func (l Layout) index(idx []Index) (Layout, error) {
	consumed, ellipses, ints, newAxes := 0, 0, 0, 0
	for _, x := range idx {
		switch x.Kind {
		case IndexInt, IndexSlice:
			consumed++
			if x.Kind == IndexInt {
				ints++
			}
		case IndexEllipsis:
			ellipses++
		case IndexNewAxis:
			newAxes++
		default:
			return Layout{}, fmt.Errorf("memview: index item of unknown kind %d: %w", x.Kind, ErrIndex)
		}
	}
	if ellipses > 1 {
		return Layout{}, errorExact(ErrIndex, "memview: an index can only have a single ellipsis ('...')")
	}
	nd := l.NDim()
	if consumed > nd {
		return Layout{}, errorExact(ErrIndex, "memview: too many indices for array: array is %d-dimensional, but %d were indexed", nd, consumed)
	}
	if rd := nd - ints + newAxes; rd > MaxNDim {
		return Layout{}, errorExact(ErrIndex, "memview: number of dimensions must be within [0, %d], indexing result would have %d", MaxNDim, rd)
	}
	out := Layout{Offset: l.Offset, Itemsize: l.Itemsize, Shape: []int{}, Strides: []int{}}
	d := 0 // next axis of l
	for _, x := range idx {
		switch x.Kind {
		case IndexNewAxis:
			out.Shape = append(out.Shape, 1)
			out.Strides = append(out.Strides, 0)
		case IndexEllipsis:
			for k := 0; k < nd-consumed; k++ {
				out.Shape = append(out.Shape, l.Shape[d])
				out.Strides = append(out.Strides, l.Strides[d])
				d++
			}
		case IndexInt:
			n, i := l.Shape[d], x.I
			if i < -n || i >= n {
				return Layout{}, errorExact(ErrIndex, "memview: index %d is out of bounds for axis %d with size %d", x.I, d, n)
			}
			if i < 0 {
				i += n
			}
			out.Offset += i * l.Strides[d]
			d++
		case IndexSlice:
			start, step, length, err := x.SliceIndices(l.Shape[d])
			if err != nil {
				return Layout{}, err
			}
			if length == 0 {
				// As NumPy: an empty slice points at position 0 with step 1.
				start, step = 0, 1
			}
			stride, ok := mulInt(step, l.Strides[d])
			if !ok {
				// Only a single position can be selected with so large a
				// step, so its stride does not matter; keep it finite.
				stride = l.Strides[d]
				if step < 0 {
					stride = -stride
				}
			}
			out.Offset += start * l.Strides[d]
			out.Shape = append(out.Shape, length)
			out.Strides = append(out.Strides, stride)
			d++
		}
	}
	for ; d < nd; d++ {
		out.Shape = append(out.Shape, l.Shape[d])
		out.Strides = append(out.Strides, l.Strides[d])
	}
	if out.Size() == 0 {
		// Any offset inside the buffer will do for an empty view. Offsets
		// moved by indexing the other axes of an already empty array may
		// point past it; go back to a's own offset, which is valid.
		imin, imax := 0, 0
		if l.Size() > 0 {
			imin, imax, _ = reach(l.Shape, l.Strides)
		}
		if out.Offset < l.Offset+imin || out.Offset > l.Offset+imax {
			out.Offset = l.Offset
		}
	}
	return out, nil
}
