// Package tour is a small Go package as a Python user meets it: doc
// comments, sentinel errors, a struct with a method, a named integer type
// with constants and functions with several results.
package tour

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"

	"github.com/memview/memview/memview"
)

// ErrEmpty is returned for an empty input.
var ErrEmpty = errors.New("tour: empty input")

// ErrRange is returned for a value out of range.
var ErrRange = errors.New("tour: out of range")

// EmptyInputErr is ErrEmpty under its older name.
var EmptyInputErr = ErrEmpty

// Mode is a rounding mode.
type Mode int

// The rounding modes Round knows.
const (
	// Floor rounds down.
	Floor Mode = iota
	// Ceil rounds up.
	Ceil
)

// Point is a point in the plane.
type Point struct {
	X, Y float64
}

// Scaled returns p with both coordinates multiplied by f.
func (p Point) Scaled(f float64) Point { return Point{p.X * f, p.Y * f} }

// Hash returns the 64-bit FNV-1a hash of b.
func Hash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// Mean returns the mean of xs; an empty xs is an error wrapping ErrEmpty.
func Mean(xs []float64) (float64, error) {
	if len(xs) == 0 {
		return 0, fmt.Errorf("tour.Mean: %w", ErrEmpty)
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs)), nil
}

// MinMax returns the smallest and the largest of xs (zeros for an empty xs).
func MinMax(xs []float64) (lo, hi float64) {
	for i, x := range xs {
		if i == 0 || x < lo {
			lo = x
		}
		if i == 0 || x > hi {
			hi = x
		}
	}
	return lo, hi
}

// Round rounds x as m says; a mode it does not know is ErrRange.
func Round(x float64, m Mode) (int, error) {
	switch m {
	case Floor:
		return int(math.Floor(x)), nil
	case Ceil:
		return int(math.Ceil(x)), nil
	}
	return 0, fmt.Errorf("tour.Round: mode %d: %w", int(m), ErrRange)
}

// Within reports whether x lies in [from, to): its parameters' names are
// Python keywords.
func Within(x, from, to float64) bool { return from <= x && x < to }

// Pick returns zero: its parameters have no names.
func Pick([]float64, int) float64 { return 0 }

// Check returns ErrEmpty itself for zero, EmptyInputErr's value for one,
// and nil otherwise.
func Check(n int) error {
	switch n {
	case 0:
		return ErrEmpty
	case 1:
		return EmptyInputErr
	}
	return nil
}

// Next returns xs[i]; past the end, an error wrapping io.EOF.
func Next(xs []float64, i int) (float64, error) {
	if i >= len(xs) {
		return 0, fmt.Errorf("tour.Next: %d: %w", i, io.EOF)
	}
	return xs[i], nil
}

// Scale is a factor, an untyped constant of full precision.
const Scale = 1.0 / 3

// ParseError is an error type: the line and what went wrong there.
type ParseError struct {
	Line int
	Msg  string
}

// Error says where and what.
func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Parse returns an error wrapping a *ParseError for a negative line, and nil
// for any other.
func Parse(line int) error {
	if line < 0 {
		return fmt.Errorf("tour.Parse: %w", &ParseError{Line: line, Msg: "negative"})
	}
	return nil
}

// Clamp returns x for x in [0, 1]; otherwise an error that wraps both
// ErrRange and memview's ErrInvalid.
func Clamp(x float64) (float64, error) {
	if x < 0 || x > 1 {
		return 0, fmt.Errorf("tour.Clamp: %g: %w (%w)", x, ErrRange, memview.ErrInvalid)
	}
	return x, nil
}

// Open fails as os.Open does for a file that does not exist.
func Open(name string) error {
	return &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
