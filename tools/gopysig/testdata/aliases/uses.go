package aliases

import dep "github.com/memview/memview/tools/gopysig/testdata/aliasdep"

// Warmer takes and returns an alias of a basic type.
func Warmer(c Celsius) Celsius { return hidden(c) + 1 }

// Mean takes an alias of an alias.
func Mean(ts Temps) Celsius {
	var s Celsius
	for _, t := range ts {
		s += t
	}
	return s / Celsius(len(ts))
}

// Twice takes another package's type through an alias.
func Twice(s Span) Span { return 2 * s }

// Keys takes an instance of a generic alias.
func Keys(s Set[string]) []string {
	var out []string
	for k := range s {
		out = append(out, k)
	}
	return out
}

// Norm takes a pointer to an aliased struct.
func Norm(p *Point) float64 { return p.X + p.Y }

// Apply takes an aliased func.
func Apply(h Handler) Celsius { c, _ := h(1, 2); return c }

// Drain takes a channel of aliased channels.
func Drain(c chan Inbox) int { return len(c) }

// Describe takes any.
func Describe(v any) string { _ = v; return "" }

// Open takes what another package cannot write: its alias stays.
func Open(s dep.Secret) int { return dep.Read(s) }

// Reading has fields of aliases, one embedded (its name is the alias's).
type Reading struct {
	At   Span
	Vals map[string]Temps
	Temps
}

// Source has a method of aliases.
type Source interface {
	Next() (Celsius, error)
}

// Scale is a defined type whose underlying type is an alias.
type Scale Temps
