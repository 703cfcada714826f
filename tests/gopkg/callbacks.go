package gopkg

import "fmt"

// ApplyInt calls f on x, twice: a Go func parameter that gopy hands a Python
// callable.
func ApplyInt(f func(int) int, x int) int { return f(f(x)) }

// ApplyStr calls f on s and marks the result.
func ApplyStr(f func(string) string, s string) string { return f(s) + "!" }

// ApplyOrFail calls f on x and fails when the result is negative.
func ApplyOrFail(f func(int) int, x int) (int, error) {
	if r := f(x); r >= 0 {
		return r, nil
	}
	return 0, fmt.Errorf("gopkg: negative result")
}

// Visit calls f on every element of xs.
func Visit(f func(float64), xs []float64) {
	for _, x := range xs {
		f(x)
	}
}
