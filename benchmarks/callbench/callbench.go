// Package callbench is the Go package benchmarks/bench_calls.py calls through
// its bound functions, and the floor it measures them against: hand-written
// METH_FASTCALL entries (anchor.c) that make one cgo call each into the same
// Go code, and plain C functions doing the same work without Go.
package callbench

import (
	"unsafe"

	"github.com/memview/memview/memview"
)

// Nop does nothing.
func Nop() {}

// Add returns a + b.
func Add(a, b int) int { return a + b }

// Sum returns the sum of x.
func Sum(x []float64) float64 { return sum(x) }

// Scale multiplies every element of the 1-d float64 array a by f, in place.
func Scale(a *memview.Array, f float64) error {
	if a.DType() != memview.Float64 || a.NDim() != 1 || a.ReadOnly() {
		return memview.ErrInvalid
	}
	scale(a.Pointer(), a.Shape()[0], a.Strides()[0], f)
	return nil
}

// Acc is a bound type, for the method rows: Python holds it by gopy's handle.
type Acc struct{ calls int }

// NewAcc returns an Acc.
func NewAcc() *Acc { return &Acc{} }

// Nop does nothing.
func (a *Acc) Nop() {}

// Sum returns the sum of x.
func (a *Acc) Sum(x []float64) float64 { return sum(x) }

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

func scale(p unsafe.Pointer, n, stride int, f float64) {
	for i := range n {
		q := (*float64)(unsafe.Add(p, i*stride))
		*q *= f
	}
}
