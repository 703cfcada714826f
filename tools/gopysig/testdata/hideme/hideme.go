// Package hideme holds declarations gopy cannot bind, for hide_test.go.
package hideme

// Box is generic.
type Box[T any] struct{ V T }

// Make returns an instance.
func Make(v int) Box[int] { return Box[int]{v} }

// Meters is an alias.
type Meters = float64

// Double uses the alias and stays bound.
func Double(m Meters) Meters { return 2 * Make(int(m)).V0() }

// V0 is a method of the generic type.
func (b Box[T]) V0() float64 { return 0 }

// Holder has a field of an instance and one gopy binds.
type Holder struct {
	B Box[string]
	N int
}

// True is a Python keyword.
const True = 1

// Flags has a field named like a Python keyword.
type Flags struct{ None, Set int }
