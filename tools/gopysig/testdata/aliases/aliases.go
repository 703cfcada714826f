// Package aliases uses type aliases wherever its exported API can, for
// unalias_test.go.
package aliases

import "time"

// Celsius is an alias of a basic type.
type Celsius = float64

// Temps is an alias of an alias.
type Temps = []Celsius

// Span names another package's type; uses.go, which uses it, does not import
// that package.
type Span = time.Duration

// Set is a generic alias.
type Set[K comparable] = map[K]struct{}

// Point is an alias of a struct type with tags.
type Point = struct {
	X float64 `json:"x"`
	Y Celsius
}

// Handler is an alias of a func type with named parameters.
type Handler = func(t Celsius, n ...int) (Celsius, error)

// Inbox is an alias of a receive-only channel.
type Inbox = <-chan Celsius

// Threshold has an alias as its inferred type.
var Threshold = Celsius(3)

// Limit has one written.
const Limit Celsius = 9

// Steps are constants whose type their values give, the second repeating the
// first spec.
const (
	Step Celsius = iota + 1
	Stride
	Unit = Celsius(1)
)

// Wait is a duration.
var Wait, Again = Span(1), Span(2)

// hidden is unexported: left as written.
func hidden(c Celsius) Celsius { return c }
