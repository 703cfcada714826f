package gopkg

import (
	"errors"
	"math"
)

// MeanVariance returns the mean and the variance of x: several results,
// which Python gets as a tuple.
func MeanVariance(x []float64) (mean, variance float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(x))
}

// Split returns the integer and the fractional part of x.
func Split(x float64) (int, float64) {
	i, f := math.Modf(x)
	return int(i), f
}

// Words returns the first word of s, the rest, and whether s had a space:
// three results of three kinds.
func Words(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// ErrNegative is returned by Root for a negative number.
var ErrNegative = errors.New("gopkg: negative number")

// Root returns the square root of x and its square, or ErrNegative: (T, T,
// error), a tuple or an exception.
func Root(x float64) (float64, float64, error) {
	if x < 0 {
		return 0, 0, ErrNegative
	}
	return math.Sqrt(x), x * x, nil
}

// BoxPair returns a box of n and whether n is positive: a gopy object among
// several results.
func BoxPair(n int) (*Box, bool) { return &Box{N: n}, n > 0 }

// MaybeBox returns nil for a negative n: None in Python.
func MaybeBox(n int) *Box {
	if n < 0 {
		return nil
	}
	return &Box{N: n}
}

// BoxOrNil says whether b is nil (None from Python) or its N.
func BoxOrNil(b *Box) string {
	if b == nil {
		return "nil"
	}
	return "box"
}

// NilSlice says whether x is nil (None from Python) and its length.
func NilSlice(x []float64) (bool, int) { return x == nil, len(x) }

// Parts returns the whole and the fractional part of the running total: a
// method with several results.
func (a *Acc) Parts() (whole, frac float64) { return math.Modf(a.total) }

// Tail returns the last n elements of x: a slice of the input's memory,
// which Python gets as a view of the argument.
func Tail(x []float64, n int) []float64 { return x[len(x)-n:] }

// NilFloats returns a nil slice: a zero-length array in Python.
func NilFloats() []float64 { return nil }
