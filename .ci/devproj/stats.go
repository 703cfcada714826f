// Package stats is a Go developer's own package, built into a Python
// distribution of its own with memview's build backend.
package stats

// Mean returns the mean of x (0 for none).
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Scale multiplies every element of x by f, in place.
func Scale(x []float64, f float64) {
	for i := range x {
		x[i] *= f
	}
}
