package gopkg

// Go names that are Python keywords (None, True, False) would make gopy write
// Python that does not compile (`def None():`): the build leaves them out
// (tools/gopysig/hide.go) and binds the rest of the package.

// None is a function named like a Python keyword.
func None() int { return 1 }

// True is a variable named like a Python keyword.
var True = 2

// Flags has fields and a method named like Python keywords, and one bound.
type Flags struct {
	False int
	Set   int
}

// None is a method named like a Python keyword.
func (f *Flags) None() int { return f.False }

// Count returns the fields' sum, through the hidden field and method.
func (f *Flags) Count() int { return f.None() + f.Set }
