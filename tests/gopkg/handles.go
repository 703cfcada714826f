package gopkg

import (
	"fmt"
	"strings"
)

// Box is a struct that gopy passes to Go by handle.
type Box struct{ N int }

// NewBox makes a Box.
func NewBox(n int) *Box { return &Box{N: n} }

// BoxN reads a Box passed by handle.
func BoxN(b *Box) int { return b.N }

// Add adds another Box's count to this one's and returns it.
func (b *Box) Add(o *Box) int { b.N += o.N; return b.N }

// String makes Box a fmt.Stringer.
func (b *Box) String() string { return fmt.Sprintf("box(%d)", b.N) }

// Stringify takes an interface, passed by handle.
func Stringify(s fmt.Stringer) string { return s.String() }

// Join takes a []string, passed by handle (go.Slice_string).
func Join(parts []string) string { return strings.Join(parts, ",") }

// CountBoxes takes Boxes as variadic arguments, each passed by handle.
func CountBoxes(boxes ...*Box) int {
	n := 0
	for _, b := range boxes {
		n += b.N
	}
	return n
}

// Keeper keeps the slice it is given beyond the call, as gonum's mat.NewDense
// keeps its data: the memory must stay alive as long as the Keeper.
type Keeper struct{ data []float64 }

// KeepSlice returns a Keeper of data.
func KeepSlice(data []float64) *Keeper { return &Keeper{data: data} }

// Reset makes the Keeper keep other data.
func (k *Keeper) Reset(data []float64) { k.data = data }

// At reads the kept data.
func (k *Keeper) At(i int) float64 { return k.data[i] }
