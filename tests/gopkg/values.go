package gopkg

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// Point is a struct of plain fields: returned by value, a Python value object.
type Point struct{ X, Y float64 }

// Mid returns the point halfway between (ax, ay) and (bx, by).
func Mid(ax, ay, bx, by float64) Point { return Point{(ax + bx) / 2, (ay + by) / 2} }

// Norm1 is the L1 norm of p: a method with a value receiver.
func (p Point) Norm1() float64 { return abs(p.X) + abs(p.Y) }

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Uint128 is a 128-bit hash, as xxh3's Hash128 returns it.
type Uint128 struct{ Hi, Lo uint64 }

// Hash128 returns two FNV-1a hashes of b: a struct of plain fields from a
// read-only buffer, keeping nothing alive.
func Hash128(b []byte) Uint128 {
	h := fnv.New64a()
	_, _ = h.Write(b)
	lo := h.Sum64()
	_, _ = h.Write([]byte{0})
	return Uint128{Hi: h.Sum64(), Lo: lo}
}

// Labelled has fields of every plain kind.
type Labelled struct {
	Name string
	N    int32
	OK   bool
	F    float32
}

// Label returns a Labelled of n.
func Label(n int32) Labelled {
	return Labelled{Name: "n" + string(rune('0'+n%10)), N: n, OK: n > 0, F: 0.5}
}

// Digest returns the FNV-1a hash of b as 8 bytes: a [N]byte is bytes.
func Digest(b []byte) [8]byte {
	h := fnv.New64a()
	_, _ = h.Write(b)
	var out [8]byte
	copy(out[:], h.Sum(nil))
	return out
}

// Corners returns a fixed array of floats: a tuple.
func Corners(x float64) [3]float64 { return [3]float64{x, 2 * x, 3 * x} }

// Signs returns a fixed array of bools and an int: several results.
func Signs(n int) ([2]bool, int) { return [2]bool{n > 0, n%2 == 0}, n }

// Dist is the L1 distance of two points taken by value: a value object, or
// any object with the fields as attributes (gopy's Point too), in Python.
func Dist(a, b Point) float64 { return abs(a.X-b.X) + abs(a.Y-b.Y) }

// Describe2 formats a Labelled taken by value.
func Describe2(l Labelled) string {
	return l.Name + ":" + string(rune('0'+l.N%10)) + map[bool]string{true: "+", false: "-"}[l.OK]
}

// Move moves p by (dx, dy): a pointer-receiver method, which updates the
// fields of the value object it is called on.
func (p *Point) Move(dx, dy float64) { p.X += dx; p.Y += dy }

// Rename sets the name of l and returns the old one.
func (l *Labelled) Rename(name string) string {
	old := l.Name
	l.Name, l.OK = name, !l.OK
	return old
}

// ID is a named [N]byte with methods (as uuid.UUID): a bytes subclass.
type ID [4]byte

// NewID is the ID of n, big-endian.
func NewID(n uint32) ID { return ID{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)} }

// String is the ID in hex: str() of the bytes subclass.
func (id ID) String() string { return fmt.Sprintf("%02x%02x%02x%02x", id[0], id[1], id[2], id[3]) }

// Number is the ID's n back.
func (id ID) Number() uint32 {
	return uint32(id[0])<<24 | uint32(id[1])<<16 | uint32(id[2])<<8 | uint32(id[3])
}

// Parity is a named integer without constants, with a method.
func (id ID) Parity() Parity { return Parity(id.Number() % 2) }

// Reset is a pointer-receiver method: not on the bytes subclass.
func (id *ID) Reset() { *id = ID{} }

// Next is the ID after id: a named [N]byte taken from any 4 bytes.
func Next(id ID) ID { return NewID(id.Number() + 1) }

// NextVia takes an ID through gopy's path (a Go func parameter sends the call there).
func NextVia(id ID, f func(uint32) uint32) ID { return NewID(f(id.Number())) }

// Parity is 0 or 1.
type Parity int

// Odd reports whether p is 1.
func (p Parity) Odd() bool { return p == 1 }

// Fields splits s at spaces: a []string result is a list of str.
func Fields(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Fields(s)
}

// ErrText is err's message, or "<nil>": an error parameter takes None (nil)
// or a str (an error with that message).
func ErrText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
