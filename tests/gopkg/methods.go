package gopkg

import (
	"fmt"
	"strings"

	"github.com/memview/memview/memview"
)

// Tool is a bound type whose methods take and return every kind of value
// the generated call entries convert, so that tests/test_gopy_fastpath.py
// can call each through its entry and through gopy's path.
type Tool struct {
	Calls int
	Name  string
}

// NewTool returns a Tool named name.
func NewTool(name string) *Tool { return &Tool{Name: name} }

// Mix formats one argument of every scalar kind.
func (t *Tool) Mix(a int8, b int16, c int32, d int64, e int, r rune, f uint8, g uint16, h uint32, i uint64, j uint,
	k uintptr, x float32, y float64, ok bool, s string) string {
	t.Calls++
	return fmt.Sprint(a, b, c, d, e, r, f, g, h, i, j, k, x, y, ok, s)
}

// Int8 returns v + 1 (it wraps).
func (t *Tool) Int8(v int8) int8 { return v + 1 }

// Uint64 returns v.
func (t *Tool) Uint64(v uint64) uint64 { return v }

// Float32 returns v / 2.
func (t *Tool) Float32(v float32) float32 { return v / 2 }

// Not returns !v.
func (t *Tool) Not(v bool) bool { return !v }

// Upper returns s in upper case, prefixed with the Tool's name.
func (t *Tool) Upper(s string) string { return t.Name + ":" + strings.ToUpper(s) }

// Scale multiplies x by f in place and counts the call.
func (t *Tool) Scale(x []float64, f float64) {
	t.Calls++
	for i := range x {
		x[i] *= f
	}
}

// Bump adds one to every byte of x.
func (t *Tool) Bump(x []byte) int {
	inc(x)
	return len(x)
}

// SumSamples returns the sum of x, a named slice type.
func (t *Tool) SumSamples(x Samples) float64 { return SumSamples(x) }

// Describe describes a as gopkg.Describe does, after the Tool's name.
func (t *Tool) Describe(a *memview.Array) string { return t.Name + " " + Describe(a) }

// Fill sets every element of a float64 array to v.
func (t *Tool) Fill(a *memview.Array, v float64) error {
	t.Calls++
	return Fill(a, v)
}

// Ramp returns a new Go slice 0, 1, ..., n-1.
func (t *Tool) Ramp(n int) []float64 { return Float64s(n) }

// Box returns a new Box of n.
func (t *Tool) Box(n int) *Box { return &Box{N: n + t.Calls} }

// Merge adds the N of b to the Tool's calls and returns the new count.
func (t *Tool) Merge(b *Box) int {
	t.Calls += b.N
	return t.Calls
}

// Keep returns a Keeper of x: the memory lent lives as long as the Keeper.
func (t *Tool) Keep(x []float64) *Keeper { return KeepSlice(x) }

// Fail returns an error wrapping the memview sentinel named (Fail).
func (t *Tool) Fail(kind string) error { return Fail(kind) }

// Checked returns v, or an error when v is negative.
func (t *Tool) Checked(v int) (int, error) {
	if v < 0 {
		return 0, fmt.Errorf("gopkg.Tool.Checked(%d): %w", v, memview.ErrInvalid)
	}
	return v, nil
}

// Panic panics with msg.
func (t *Tool) Panic(msg string) int { panic(msg) }

// Label is a method with a value receiver.
func (t Tool) Label() string { return fmt.Sprintf("%s/%d", t.Name, t.Calls) }

// Nop does nothing.
func (t *Tool) Nop() {}

// Special is a Tool that embeds it, for the handle checks of its methods.
type Special struct {
	Tool
	Extra int
}

// NewSpecial returns a Special named name.
func NewSpecial(name string) *Special { return &Special{Tool: Tool{Name: name}} }

// Shaper is an interface gopy binds with its methods, which keep gopy's path
// (the build names them).
type Shaper interface {
	Area() float64
}

// Square is a Shaper.
type Square struct{ Side float64 }

// Area returns the square's area.
func (s *Square) Area() float64 { return s.Side * s.Side }

// AsShaper returns a square of side s, as a Shaper.
func AsShaper(s float64) Shaper { return &Square{Side: s} }
