package gopkg

import "hash/fnv"

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
func Label(n int32) Labelled { return Labelled{Name: "n" + string(rune('0'+n%10)), N: n, OK: n > 0, F: 0.5} }

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
