package gopkg

import "fmt"

// Type aliases wherever an exported API can have them: the build spells each
// out, for gopy, as the type it names (tools/gopysig/unalias.go), and gopy
// binds what uses them as if they were written without; this file does not
// import time, whose type Span names. tests/test_gopy_not_bound.py.

// Temps is an alias of an alias (of []float64).
type Temps = []Celsius

// Twice doubles a duration, given and returned through an alias of another
// package's type.
func Twice(d Span) Span { return 2 * d }

// MeanOf returns the mean of ts, an alias of an alias of a slice.
func MeanOf(ts Temps) Celsius {
	s := Celsius(0)
	for _, t := range ts {
		s += t
	}
	return s / Celsius(len(ts))
}

// KindOf names the Go type of v, given as any (an alias of interface{}).
func KindOf(v any) string { return fmt.Sprintf("%T", v) }

// Thermo has fields of aliased types.
type Thermo struct {
	Now   Celsius
	Every Span
}

// Limit is a variable whose type, inferred, is an alias.
var Limit = Celsius(40)

// Freezing is a constant whose type, given by its value, is an alias.
const Freezing = Celsius(0)
