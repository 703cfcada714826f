package pyext

import "github.com/memview/memview/memview"

// scale and sum are Go code working in place on an array's memory — Go-owned or
// borrowed from a Python exporter — the consumer side the tests drive from Python.

// scale multiplies every element of a by f in place.
func scale(a *memview.Array, f float64) error {
	return eachIndex(a.Shape(), func(idx []int) error {
		v, err := a.Float64(idx...)
		if err != nil {
			return err
		}
		return a.SetFloat64(v*f, idx...)
	})
}

// sum adds up the elements of a.
func sum(a *memview.Array) (float64, error) {
	var s float64
	err := eachIndex(a.Shape(), func(idx []int) error {
		v, err := a.Float64(idx...)
		s += v
		return err
	})
	return s, err
}

// eachIndex calls fn with every index of shape in C order.
func eachIndex(shape []int, fn func(idx []int) error) error {
	for _, n := range shape {
		if n == 0 {
			return nil
		}
	}
	idx := make([]int, len(shape))
	for {
		if err := fn(idx); err != nil {
			return err
		}
		d := len(shape) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return nil
		}
	}
}
