package memview

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// The helpers below check copies against a reference that moves one item
// at a time through indices and the layout's arithmetic, and compare whole
// buffers, so a copy that writes outside its destination is caught too.

// overBuffer returns an array of dt with shape and strides over buf at
// offset, released when the test ends.
func overBuffer(t testing.TB, buf *Buffer, dt DType, shape, strides []int, offset int) *Array {
	t.Helper()
	return must(t)(NewArray(buf, dt, shape, strides, offset, false))
}

// patternBuffer returns a new buffer of n bytes, each set from rng (so
// distinct items differ), released when the test ends.
func patternBuffer(t testing.TB, p *Pool, rng *rand.Rand, n int) *Buffer {
	t.Helper()
	buf, err := NewBuffer(p, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := buf.Release(); err != nil {
			t.Errorf("release buffer: %v", err)
		}
	})
	for i := range buf.Bytes() {
		buf.Bytes()[i] = byte(rng.Uint32())
	}
	return buf
}

// stridedArray returns an array of dt with shape and strides over
// a fresh pattern buffer just large enough, plus slack bytes on each side.
func stridedArray(t testing.TB, p *Pool, rng *rand.Rand, dt DType, shape, strides []int, slack int) *Array {
	t.Helper()
	lo, hi := 0, 0
	if numItems(shape) > 0 {
		lo, hi, _ = reach(shape, strides)
		hi += dt.Itemsize()
	}
	buf := patternBuffer(t, p, rng, hi-lo+2*slack)
	return overBuffer(t, buf, dt, shape, strides, slack-lo)
}

// numItems is the product of shape.
func numItems(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// itemOffset is the byte offset in a's buffer of the item at idx.
func itemOffset(a *Array, idx []int) int {
	off := a.Offset()
	for k, i := range idx {
		off += i * a.Strides()[k]
	}
	return off
}

// items returns copies of a's items in C order.
func items(t testing.TB, a *Array) [][]byte {
	t.Helper()
	out := make([][]byte, 0, a.Size())
	for _, idx := range indices(a.Shape()) {
		b, err := a.ItemBytes(idx...)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, slices.Clone(b))
	}
	return out
}

// expectAssign returns dst's buffer as it must be after every item of dst
// (C order index i) is set to src[i].
func expectAssign(dst *Array, src [][]byte) []byte {
	want := slices.Clone(dst.Buffer().Bytes())
	for i, idx := range indices(dst.Shape()) {
		copy(want[itemOffset(dst, idx):], src[i])
	}
	return want
}

// checkBuffer fails t unless a's whole buffer equals want.
func checkBuffer(t testing.TB, what string, a *Array, want []byte) {
	t.Helper()
	got := a.Buffer().Bytes()
	if !bytes.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: buffer byte %d is %d, want %d (dst %v)", what, i, got[i], want[i], a)
			}
		}
	}
}

// broadcastItems returns the items of src read as shape (NumPy broadcasting),
// in C order.
func broadcastItems(t testing.TB, src *Array, shape []int) [][]byte {
	t.Helper()
	all := items(t, src)
	sShape := src.Shape()
	for len(sShape) > len(shape) {
		sShape = sShape[1:] // leading 1s
	}
	cStrides := make([]int, len(sShape)) // element strides of src's C order
	n := 1
	for k := len(sShape) - 1; k >= 0; k-- {
		cStrides[k] = n
		n *= sShape[k]
	}
	lead := len(shape) - len(sShape)
	out := make([][]byte, 0, numItems(shape))
	for _, idx := range indices(shape) {
		i := 0
		for k := range sShape {
			if sShape[k] != 1 {
				i += idx[lead+k] * cStrides[k]
			}
		}
		out = append(out, all[i])
	}
	return out
}

// randomShape returns a shape of 0 to 4 dims of 0 to 5 (mostly >= 1).
func randomShape(rng *rand.Rand) []int {
	shape := make([]int, rng.IntN(5))
	for k := range shape {
		shape[k] = 1 + rng.IntN(5)
		if rng.IntN(12) == 0 {
			shape[k] = 0
		}
	}
	return shape
}

// randomStrides returns non-self-overlapping strides for shape: dense strides
// in a random axis order, with random gaps and signs.
func randomStrides(rng *rand.Rand, shape []int, itemsize int) []int {
	strides := make([]int, len(shape))
	sd := itemsize
	for _, k := range rng.Perm(len(shape)) {
		step := 1 + rng.IntN(3)
		strides[k] = sd * step
		if rng.IntN(3) == 0 {
			strides[k] = -strides[k]
		}
		sd *= max(shape[k], 1) * step
	}
	return strides
}

// randomSourceStrides is randomStrides, with some axes broadcast (stride 0).
func randomSourceStrides(rng *rand.Rand, shape []int, itemsize int) []int {
	strides := randomStrides(rng, shape, itemsize)
	for k := range strides {
		if rng.IntN(6) == 0 {
			strides[k] = 0
		}
	}
	return strides
}

// withParallel makes every copy of more than 64 bytes split over 3
// goroutines until the test ends.
func withParallel(t testing.TB) {
	minBytes, chunk := parallelMinBytes, parallelChunk
	procs := runtime.GOMAXPROCS(3)
	parallelMinBytes, parallelChunk = 64, 16
	t.Cleanup(func() {
		parallelMinBytes, parallelChunk = minBytes, chunk
		runtime.GOMAXPROCS(procs)
	})
}
