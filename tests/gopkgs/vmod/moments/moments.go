// Package moments is a package in a subfolder of a module whose path ends
// in a major version (example.com/mvtest/vmod/v2), as gonum.org/v1/gonum/stat
// and github.com/<owner>/<name>/v4 are: the test build binds it --with.
package moments

import "math"

// Moments returns the mean, the variance and the skewness of x.
func Moments(x []float64) (mean, variance, skew float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	var m3 float64
	for _, v := range x {
		d := v - mean
		variance += d * d
		m3 += d * d * d
	}
	variance /= n
	return mean, variance, m3 / n / math.Pow(variance, 1.5)
}

// Version is the major version of the module.
func Version() int { return 2 }
