package gopkg

// SumSamples returns the sum of x: a parameter of a named slice type, which
// the generated call entry takes from a NumPy array as it takes a []float64.
func SumSamples(x Samples) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}
