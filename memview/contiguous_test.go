package memview

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// orderedItems returns a's items in C order, or in F order (first index
// fastest) for order 'F'.
func orderedItems(t testing.TB, a *Array, order byte) [][]byte {
	t.Helper()
	all := items(t, a)
	if order == 'C' {
		return all
	}
	shape := a.Shape()
	rev := slices.Clone(shape)
	slices.Reverse(rev)
	out := make([][]byte, 0, len(all))
	for _, ridx := range indices(rev) { // ridx is idx reversed, so idx[0] is fastest
		i := 0
		for k := range shape {
			i = i*shape[k] + ridx[len(shape)-1-k]
		}
		out = append(out, all[i])
	}
	return out
}

func TestToContiguousRandom(t *testing.T) {
	for _, par := range []bool{false, true} {
		t.Run(fmt.Sprintf("parallel=%t", par), func(t *testing.T) {
			if par {
				withParallel(t)
			}
			rng := rand.New(rand.NewPCG(13, 14))
			p := newTestPool(t)
			for i := range 500 {
				dt := DTypes()[rng.IntN(len(DTypes()))]
				shape := randomShape(rng)
				src := stridedArray(t, p, rng, dt, shape, randomSourceStrides(rng, shape, dt.Itemsize()), rng.IntN(20))
				for _, order := range []byte("CFA") {
					resolved := order
					if order == 'A' {
						resolved = 'C'
						if src.FContiguous() && !src.CContiguous() {
							resolved = 'F'
						}
					}
					want := bytes.Join(orderedItems(t, src, resolved), nil)
					got := make([]byte, src.NBytes())
					if err := ToContiguous(got, src, order); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("%d: ToContiguous(%v, %c) = %v, want %v", i, src, order, got, want)
					}
				}
			}
		})
	}
}

func TestFromContiguousRandom(t *testing.T) {
	for _, par := range []bool{false, true} {
		t.Run(fmt.Sprintf("parallel=%t", par), func(t *testing.T) {
			if par {
				withParallel(t)
			}
			rng := rand.New(rand.NewPCG(15, 16))
			p := newTestPool(t)
			for i := range 500 {
				dt := DTypes()[rng.IntN(len(DTypes()))]
				shape := randomShape(rng)
				dst := stridedArray(t, p, rng, dt, shape, randomStrides(rng, shape, dt.Itemsize()), rng.IntN(20))
				for _, order := range []byte("CFA") {
					resolved := order
					if order == 'A' {
						resolved = 'C'
						if dst.FContiguous() && !dst.CContiguous() {
							resolved = 'F'
						}
					}
					src := make([]byte, dst.NBytes())
					for k := range src {
						src[k] = byte(rng.Uint32())
					}
					// Item j of src goes to the j-th index of dst in the order.
					size := dt.Itemsize()
					byIndex := make([][]byte, dst.Size())
					pos := orderedIndexPositions(dst.Shape(), resolved)
					for j, c := range pos {
						byIndex[c] = src[j*size : (j+1)*size]
					}
					want := expectAssign(dst, byIndex)
					if err := FromContiguous(dst, src, order); err != nil {
						t.Fatal(err)
					}
					checkBuffer(t, fmt.Sprintf("%d: FromContiguous(%v, %c)", i, dst, order), dst, want)
				}
			}
		})
	}
}

// orderedIndexPositions returns, for each position j in order 'C' or 'F',
// the C-order number of the index found there.
func orderedIndexPositions(shape []int, order byte) []int {
	n := numItems(shape)
	out := make([]int, n)
	for j := range out {
		out[j] = j
	}
	if order == 'F' && n > 0 {
		rev := slices.Clone(shape)
		slices.Reverse(rev)
		for j, ridx := range indices(rev) {
			c := 0
			for k := range shape {
				c = c*shape[k] + ridx[len(shape)-1-k]
			}
			out[j] = c
		}
	}
	return out
}

// TestContiguousAliasing converts arrays into and out of their own buffers.
func TestContiguousAliasing(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Float64, 10)
	rev := must(t)(a.Index(SliceStep(-1)))
	if err := ToContiguous(a.Buffer().Bytes(), rev, 'C'); err != nil {
		t.Fatal(err)
	}
	if got := values(t, a); !slices.Equal(got, floats(9, 8, 7, 6, 5, 4, 3, 2, 1, 0)) {
		t.Fatalf("ToContiguous of a[::-1] into a's buffer: %v", got)
	}
	if err := FromContiguous(rev, a.Buffer().Bytes(), 'C'); err != nil {
		t.Fatal(err)
	}
	if got := values(t, a); !slices.Equal(got, floats(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)) {
		t.Fatalf("FromContiguous of a's buffer into a[::-1]: %v", got)
	}
	m := arange(t, p, Float64, 3, 4)
	if err := ToContiguous(m.Buffer().Bytes(), m, 'F'); err != nil {
		t.Fatal(err)
	}
	if got := values(t, m); !slices.Equal(got, floats(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11)) {
		t.Fatalf("ToContiguous(m's buffer, m, 'F'): %v", got)
	}
}

func TestContiguousErrors(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Float64, 2, 3)
	n := a.NBytes()
	ro := must(t)(a.AsReadOnly())
	for _, tc := range []struct {
		name string
		err  error
		call func() error
	}{
		{"to: short", ErrInvalid, func() error { return ToContiguous(make([]byte, n-1), a, 'C') }},
		{"to: long", ErrInvalid, func() error { return ToContiguous(make([]byte, n+8), a, 'C') }},
		{"to: order K", ErrInvalid, func() error { return ToContiguous(make([]byte, n), a, 'K') }},
		{"to: order x", ErrInvalid, func() error { return ToContiguous(make([]byte, n), a, 'x') }},
		{"to: from read-only", nil, func() error { return ToContiguous(make([]byte, n), ro, 'A') }},
		{"from: short", ErrInvalid, func() error { return FromContiguous(a, make([]byte, n-8), 'C') }},
		{"from: long", ErrInvalid, func() error { return FromContiguous(a, make([]byte, n+1), 'F') }},
		{"from: order K", ErrInvalid, func() error { return FromContiguous(a, make([]byte, n), 'K') }},
		{"from: read-only", ErrReadOnly, func() error { return FromContiguous(ro, make([]byte, n), 'C') }},
		{"empty: nil", nil, func() error {
			return ToContiguous(nil, must(t)(Empty(p, []int{3, 0}, Float64, 'C')), 'F')
		}},
		{"empty: from nil", nil, func() error {
			return FromContiguous(must(t)(Empty(p, []int{0}, Int8, 'C')), nil, 'A')
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { wantErr(t, tc.call(), tc.err) })
	}
	gone := arange(t, p, Float64, 2)
	g, err := gone.Index()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Release(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, ToContiguous(make([]byte, 16), g, 'C'), ErrReleased)
	wantErr(t, FromContiguous(g, make([]byte, 16), 'C'), ErrReleased)

	// 0-d: one item.
	s := must(t)(Empty(p, []int{}, Int16, 'C'))
	if err := FromContiguous(s, []byte{1, 2}, 'F'); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 2)
	if err := ToContiguous(out, s, 'C'); err != nil || !bytes.Equal(out, []byte{1, 2}) {
		t.Fatalf("0-d round trip: %v, %v", out, err)
	}
}
