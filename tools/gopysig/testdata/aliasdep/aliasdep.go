// Package aliasdep declares aliases that package aliases uses, for
// unalias_test.go.
package aliasdep

// Value is an alias another package uses.
type Value = []int

type secret struct{ n int }

// Secret names an unexported type: another package cannot write it.
type Secret = secret

// Read reads a Secret.
func Read(s Secret) int { return s.n }
