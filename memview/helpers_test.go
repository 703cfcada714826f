package memview

import (
	"errors"
	"slices"
	"testing"
)

// newTestPool returns a checked pool over a HostAllocator and checks, when
// the test ends (after the cleanups registered later), that nothing leaked:
// Pool.AssertEmpty reports each leak with the place it was allocated.
func newTestPool(t testing.TB) *Pool {
	t.Helper()
	p := NewCheckedPool(&HostAllocator{})
	t.Cleanup(func() { p.AssertEmpty(t) })
	return p
}

// release releases a when the test ends.
func release(t testing.TB, a *Array) *Array {
	t.Helper()
	t.Cleanup(func() {
		if err := a.Release(); err != nil {
			t.Errorf("release: %v", err)
		}
	})
	return a
}

// arange returns a C-contiguous array 0, 1, 2, ... of shape, released when
// the test ends.
func arange(t testing.TB, p *Pool, dt DType, shape ...int) *Array {
	t.Helper()
	a, err := Empty(p, shape, dt, 'C')
	if err != nil {
		t.Fatal(err)
	}
	release(t, a)
	for i, idx := range indices(shape) {
		if err := a.SetFloat64(float64(i), idx...); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// must returns a function that fails t on err and releases the array when
// the test ends: must(t)(a.Index(...)).
func must(t testing.TB) func(*Array, error) *Array {
	return func(a *Array, err error) *Array {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return release(t, a)
	}
}

// indices lists every index of shape in C order.
func indices(shape []int) [][]int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	out := make([][]int, 0, n)
	idx := make([]int, len(shape))
	for i := 0; i < n; i++ {
		out = append(out, slices.Clone(idx))
		for k := len(shape) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}

// values reads every element of a in C order.
func values(t testing.TB, a *Array) []float64 {
	t.Helper()
	var out []float64
	for _, idx := range indices(a.Shape()) {
		v, err := a.Float64(idx...)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// wantErr checks that err wraps want (nil meaning no error).
func wantErr(t testing.TB, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("error %v, want one wrapping %v", err, want)
	}
}

// floats is a shorthand for a []float64 literal from ints.
func floats(v ...int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
