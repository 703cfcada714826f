package gopkg

import (
	"sync/atomic"
	"time"
)

// The declarations below are everyday Go that gopy cannot bind: generic types
// and functions, type constraints, type aliases, and what uses an instance of
// a generic type. The build hides them from gopy (tools/gopysig/hide.go) and
// binds the rest; tests/test_gopy_generics.py checks both.

// Number is a type constraint.
type Number interface{ ~int | ~int64 | ~float64 }

// Pair is a generic type.
type Pair[K comparable, V any] struct {
	Key K
	Val V
}

// Swap is a method of the generic type.
func (p Pair[K, V]) Swap() Pair[K, V] { return p }

// SumOf is a generic function.
func SumOf[T Number](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

// MakePair returns an instance of the generic type.
func MakePair(k int, v string) Pair[int, string] { return Pair[int, string]{k, v} }

// Celsius is an alias of a basic type.
type Celsius = float64

// Readings is an alias of a slice type.
type Readings = []float64

// Span is an alias of another package's type (aliases.go uses it).
type Span = time.Duration

// Warmer takes and returns an alias of a basic type.
func Warmer(c Celsius) Celsius { return c + 1 }

// Offset adds d to every element of xs in place, through an alias of a slice
// type, and returns the sum of what it wrote (SumOf, used inside a bound
// function).
func Offset(xs Readings, d float64) float64 {
	for i := range xs {
		xs[i] += d
	}
	return SumOf(xs)
}

// Named is a defined type whose underlying type is an instance of the generic
// one: a plain struct of two strings to gopy.
type Named Pair[string, string]

// Tally has fields gopy binds (Hits) and fields it cannot (an instance of a
// generic type, an atomic pointer).
type Tally struct {
	Hits int
	Last Pair[int, string]
	Ptr  atomic.Pointer[int]
}

// Hit counts one and returns the count.
func (t *Tally) Hit() int {
	t.Hits++
	t.Last = MakePair(t.Hits, "hit")
	return t.Hits
}

// LastKey returns the key of the last pair recorded.
func (t *Tally) LastKey() int { return t.Last.Key }
