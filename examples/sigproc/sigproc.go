// Package sigproc is a small signal-processing package written as any Go
// package is, and bound to Python with gopy together with memview:
//
//	python3 build.py wheel --with examples/sigproc
//
// Its slices reach NumPy without a copy (memview.asarray), its functions take
// NumPy arrays where they take []float64 or *memview.Array and work on that
// memory in place, and Signal lends its samples as a memview.Exporter.
package sigproc

import (
	"fmt"

	"github.com/memview/memview/memview"
)

// Ramp returns 0, 1, ..., n-1: Go memory, which Python views without a copy.
func Ramp(n int) []float64 {
	out := make([]float64, max(n, 0))
	for i := range out {
		out[i] = float64(i)
	}
	return out
}

// Sum adds up x. Python may pass a contiguous float64 NumPy or memview array:
// x is that memory, lent for the call.
func Sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// Scale multiplies every element of a by f, in place. a may be any float64
// array — strided, reversed, from NumPy or memview — viewed without a copy.
func Scale(a *memview.Array, f float64) error {
	v, err := memview.NewView[float64](a)
	if err != nil {
		return fmt.Errorf("sigproc.Scale: %w", err)
	}
	return v.Apply(func(_ []int, x float64) float64 { return x * f })
}

// Mean returns the mean of the elements of a (any float64 array).
func Mean(a *memview.Array) (float64, error) {
	v, err := memview.NewView[float64](a)
	if err != nil {
		return 0, fmt.Errorf("sigproc.Mean: %w", err)
	}
	if a.Size() == 0 {
		return 0, fmt.Errorf("sigproc.Mean: empty array: %w", memview.ErrInvalid)
	}
	s := 0.0
	for _, x := range v.All() {
		s += x
	}
	return s / float64(a.Size()), nil
}
