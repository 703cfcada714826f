package memview

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"unsafe"
)

func TestCopyOrders(t *testing.T) {
	for _, tc := range []struct {
		name      string
		transpose bool
		order     byte
		strides   []int
		err       error
	}{
		{"C", false, 'C', []int{24, 8}, nil},
		{"F", false, 'F', []int{8, 32}, nil},
		{"A of a non-F view is C", false, 'A', []int{24, 8}, nil},
		{"K of a non-F view is C", false, 'K', []int{24, 8}, nil},
		{"A of an F view is F", true, 'A', []int{8, 24}, nil},
		{"C of an F view", true, 'C', []int{32, 8}, nil},
		{"bad order", false, 'X', nil, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPool(t)
			_, view := runningExample(t, p) // shape (4, 3), strides (-48, 16)
			if tc.transpose {
				// An F-contiguous (3, 4) view: the transpose of a C copy.
				c := must(t)(view.Copy(p, 'C'))
				view = must(t)(c.Transpose())
			}
			want := values(t, view)
			c, err := view.Copy(p, tc.order)
			wantErr(t, err, tc.err)
			if err != nil {
				return
			}
			release(t, c)
			if !slices.Equal(c.Strides(), tc.strides) || c.Offset() != 0 || c.ReadOnly() || c.Buffer() == view.Buffer() {
				t.Fatalf("copy strides %v offset %d", c.Strides(), c.Offset())
			}
			if got := values(t, c); !slices.Equal(got, want) {
				t.Fatalf("copy %v, want %v", got, want)
			}
		})
	}
	p := newTestPool(t)
	_, view := runningExample(t, p)
	c := must(t)(view.Copy(nil, 'C'))
	if got := values(t, c); !slices.Equal(got, floats(18, 20, 22, 12, 14, 16, 6, 8, 10, 0, 2, 4)) {
		t.Fatalf("base[::-1, ::2] copy = %v", got)
	}
}

func TestCopyIntoBroadcast(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dstShape []int
		srcShape []int
		want     []float64
		err      error
	}{
		{"same shape", []int{2, 3}, []int{2, 3}, floats(0, 1, 2, 3, 4, 5), nil},
		{"row", []int{3, 4}, []int{4}, floats(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3), nil},
		{"column", []int{3, 4}, []int{3, 1}, floats(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2), nil},
		{"2-d row", []int{2, 3}, []int{1, 3}, floats(0, 1, 2, 0, 1, 2), nil},
		{"extra leading 1", []int{3}, []int{1, 1, 3}, floats(0, 1, 2), nil},
		{"scalar", []int{2, 2}, []int{}, floats(0, 0, 0, 0), nil},
		{"into 0-d", []int{}, []int{1}, floats(0), nil},
		{"empty", []int{0, 3}, []int{3}, nil, nil},
		{"mismatch", []int{3, 4}, []int{2, 4}, nil, ErrInvalid},
		{"too long", []int{3}, []int{5}, nil, ErrInvalid},
		{"extra leading dim", []int{3}, []int{2, 3}, nil, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPool(t)
			dst := must(t)(Zeros(p, tc.dstShape, Float64, 'C'))
			src := arange(t, p, Float64, tc.srcShape...)
			err := CopyInto(dst, src)
			wantErr(t, err, tc.err)
			if err == nil && !slices.Equal(values(t, dst), tc.want) {
				t.Fatalf("dst %v, want %v", values(t, dst), tc.want)
			}
		})
	}
}

func TestCopyIntoErrors(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Float64, 4)
	b := arange(t, p, Float32, 4)
	ro := must(t)(a.AsReadOnly())
	wantErr(t, CopyInto(a, b), ErrType)
	wantErr(t, CopyInto(ro, a), ErrReadOnly)
	gone := arange(t, p, Float64, 4)
	g, err := gone.Index()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Release(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, CopyInto(a, g), ErrReleased)
	wantErr(t, CopyInto(g, a), ErrReleased)
}

func TestCopyIntoOverlap(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int
		dst, src []Index
		want     []float64
	}{
		// NumPy: a = np.arange(10.); a[1:] = a[:-1]
		{"shift right", 10, []Index{Slice(1, 10, 1)}, []Index{Slice(0, 9, 1)}, floats(0, 0, 1, 2, 3, 4, 5, 6, 7, 8)},
		{"shift left", 10, []Index{Slice(0, 9, 1)}, []Index{Slice(1, 10, 1)}, floats(1, 2, 3, 4, 5, 6, 7, 8, 9, 9)},
		{"reverse in place", 6, []Index{SliceStep(-1)}, []Index{Full()}, floats(5, 4, 3, 2, 1, 0)},
		{"strided shift", 10, []Index{Slice(2, 10, 2)}, []Index{Slice(0, 8, 2)}, floats(0, 1, 0, 3, 2, 5, 4, 7, 6, 9)},
		{"strided overlapping reverse", 10, []Index{Slice(1, 10, 2)}, []Index{{Kind: IndexSlice, Start: 8, HasStart: true, Step: -2}}, floats(0, 8, 2, 6, 4, 4, 6, 2, 8, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPool(t)
			a := arange(t, p, Float64, tc.n)
			dst := must(t)(a.Index(tc.dst...))
			src := must(t)(a.Index(tc.src...))
			if err := CopyInto(dst, src); err != nil {
				t.Fatal(err)
			}
			if got := values(t, a); !slices.Equal(got, tc.want) {
				t.Fatalf("a = %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("transpose in place", func(t *testing.T) {
		p := newTestPool(t)
		m := arange(t, p, Float64, 4, 4)
		if err := CopyInto(m, must(t)(m.Transpose())); err != nil {
			t.Fatal(err)
		}
		for _, idx := range indices([]int{4, 4}) {
			if v, _ := m.Float64(idx...); v != float64(4*idx[1]+idx[0]) {
				t.Fatalf("m%v = %v after m[...] = m.T", idx, v)
			}
		}
	})
}

func TestFillBytes(t *testing.T) {
	seven := make([]byte, 8)
	binary.LittleEndian.PutUint64(seven, math.Float64bits(7))
	for _, tc := range []struct {
		name string
		key  []Index
		want []float64
	}{
		{"whole", nil, floats(7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7)},
		{"reversed every other column", []Index{SliceStep(-1), SliceStep(2)}, floats(7, 1, 7, 3, 7, 5, 7, 7, 7, 9, 7, 11)},
		{"column", []Index{Full(), Int(1)}, floats(0, 7, 2, 3, 4, 7, 6, 7, 8, 7, 10, 11)},
		{"one element", []Index{Int(2), Int(3)}, floats(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 7)},
		{"empty", []Index{Slice(0, 0, 1)}, floats(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)},
		{"transposed", []Index{}, floats(7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPool(t)
			a := arange(t, p, Float64, 3, 4)
			v := must(t)(a.Index(tc.key...))
			if tc.name == "transposed" {
				v = must(t)(v.Transpose())
			}
			if err := v.FillBytes(seven); err != nil {
				t.Fatal(err)
			}
			if got := values(t, a); !slices.Equal(got, tc.want) {
				t.Fatalf("a = %v, want %v", got, tc.want)
			}
		})
	}
	p := newTestPool(t)
	a := arange(t, p, Float64, 3)
	wantErr(t, a.FillBytes(seven[:4]), ErrInvalid)
	big := must(t)(Empty(p, []int{1000, 3}, Uint16, 'C'))
	if err := big.FillBytes([]byte{1, 2}); err != nil {
		t.Fatal(err)
	}
	for i, b := range big.Buffer().Bytes() {
		if b != byte(1+i%2) {
			t.Fatalf("byte %d is %d", i, b)
		}
	}
}

// TestCopyOrdersNumPy checks the strides of copies in every order against
// NumPy 2.4 (a.copy(order="A").strides, np.copy(a, order="K").strides) for
// float64 views of np.arange(24.).reshape(2, 3, 4), its Fortran copy f, and
// np.broadcast_to / as_strided views.
func TestCopyOrdersNumPy(t *testing.T) {
	for _, tc := range []struct {
		name          string
		shape, stride []int
		a, k          []int
	}{
		{"transposed", []int{4, 3, 2}, []int{8, 32, 96}, []int{8, 32, 96}, []int{8, 32, 96}},
		{"axes 1 0 2", []int{3, 2, 4}, []int{32, 96, 8}, []int{64, 32, 8}, []int{32, 96, 8}},
		{"reversed axes 0 and 2", []int{2, 3, 4}, []int{-96, 32, -8}, []int{96, 32, 8}, []int{96, 32, 8}},
		{"reversed then transposed", []int{4, 3, 2}, []int{8, -32, 96}, []int{48, 16, 8}, []int{8, 32, 96}},
		{"stepped", []int{2, 2, 3}, []int{96, 64, 8}, []int{48, 24, 8}, []int{48, 24, 8}},
		{"broadcast row", []int{4, 3}, []int{0, 8}, []int{24, 8}, []int{8, 32}},
		{"broadcast column", []int{4, 3}, []int{8, 0}, []int{24, 8}, []int{24, 8}},
		{"new axis", []int{2, 1, 3}, []int{96, 0, 32}, []int{24, 24, 8}, []int{24, 8, 8}},
		{"F with trailing 1", []int{4, 3, 1}, []int{8, 32, 96}, []int{8, 32, 96}, []int{8, 32, 96}},
		{"equal strides", []int{3, 3}, []int{8, 8}, []int{24, 8}, []int{24, 8}},
		{"equal strides and 0", []int{2, 3, 2}, []int{8, 0, 8}, []int{48, 16, 8}, []int{48, 8, 24}},
		{"F", []int{2, 3, 4}, []int{8, 16, 48}, []int{8, 16, 48}, []int{8, 16, 48}},
		{"F sliced", []int{2, 2, 4}, []int{8, 16, 48}, []int{64, 32, 8}, []int{8, 16, 32}},
		{"F reversed", []int{2, 3, 4}, []int{-8, 16, 48}, []int{96, 32, 8}, []int{8, 16, 48}},
		{"1-d reversed", []int{5}, []int{-8}, []int{8}, []int{8}},
		{"0-d", []int{}, []int{}, []int{}, []int{}},
		{"C with odd 1-strides", []int{1, 3, 1, 4}, []int{8, 32, 100, 8}, []int{96, 32, 32, 8}, []int{96, 32, 32, 8}},
		{"F with odd 1-stride", []int{3, 1, 4}, []int{8, 1000, 24}, []int{8, 24, 24}, []int{8, 24, 24}},
		{"broadcast scalar", []int{3, 4}, []int{0, 0}, []int{32, 8}, []int{32, 8}},
		{"reversed equal strides", []int{3, 3}, []int{-8, 8}, []int{24, 8}, []int{24, 8}},
		{"2-d stepped", []int{3, 2}, []int{64, 16}, []int{16, 8}, []int{16, 8}},
		{"F middle reversed", []int{2, 3, 4}, []int{8, -16, 48}, []int{96, 32, 8}, []int{8, 16, 48}},
		{"4-d mixed", []int{2, 2, 3, 2}, []int{8, 96, 16, 48}, []int{96, 48, 16, 8}, []int{8, 96, 16, 48}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPool(t)
			rng := rand.New(rand.NewPCG(1, 2))
			src := stridedArray(t, p, rng, Float64, tc.shape, tc.stride, 8)
			want := items(t, src)
			cStrides, _ := ContiguousStrides(tc.shape, 8, 'C')
			fStrides, _ := ContiguousStrides(tc.shape, 8, 'F')
			for order, strides := range map[byte][]int{'C': cStrides, 'F': fStrides, 'A': tc.a, 'K': tc.k} {
				c := must(t)(src.Copy(p, order))
				if !slices.Equal(c.Strides(), strides) || c.Offset() != 0 || c.Buffer().Len() != src.NBytes() {
					t.Errorf("copy %c: strides %v offset %d buffer %d bytes, want strides %v", order, c.Strides(), c.Offset(), c.Buffer().Len(), strides)
				}
				if got := items(t, c); !slices.EqualFunc(got, want, bytes.Equal) {
					t.Errorf("copy %c: items differ", order)
				}
			}
		})
	}
}

// TestCopyRandom copies random layouts of every dtype in every order,
// serially and split over goroutines.
func TestCopyRandom(t *testing.T) {
	for _, par := range []bool{false, true} {
		t.Run(fmt.Sprintf("parallel=%t", par), func(t *testing.T) {
			if par {
				withParallel(t)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			p := newTestPool(t)
			for i := range 300 {
				dt := DTypes()[rng.IntN(len(DTypes()))]
				shape := randomShape(rng)
				src := stridedArray(t, p, rng, dt, shape, randomSourceStrides(rng, shape, dt.Itemsize()), rng.IntN(20))
				want := items(t, src)
				for _, order := range []byte("CFAK") {
					c := must(t)(src.Copy(p, order))
					l := c.Layout()
					dense := l.CContiguous() || l.FContiguous() || selfOverlapFree(loopAxes(l), l.Itemsize)
					if !dense || (order == 'C' && !l.CContiguous()) || (order == 'F' && !l.FContiguous()) || c.Buffer().Len() != src.NBytes() {
						t.Fatalf("%d: copy %c of %v: %v", i, order, src, c)
					}
					if got := items(t, c); !slices.EqualFunc(got, want, bytes.Equal) {
						t.Fatalf("%d: copy %c of %v: items differ", i, order, src)
					}
				}
			}
		})
	}
}

// loopAxes returns the axes of a loop over l (none when l is empty).
func loopAxes(l Layout) []axis {
	lp, _ := newLoop(l.Shape, l.Strides, l.Strides)
	return lp.axes
}

// assignCase is a random destination and source for a copy between arrays,
// in separate buffers or (shared) in one, where they may overlap.
func assignCase(t *testing.T, p *Pool, rng *rand.Rand, broadcast, shared bool) (dst, src *Array) {
	t.Helper()
	dt := DTypes()[rng.IntN(len(DTypes()))]
	size := dt.Itemsize()
	shape := randomShape(rng)
	sShape := slices.Clone(shape)
	if broadcast {
		for k := range sShape {
			if rng.IntN(3) == 0 {
				sShape[k] = 1
			}
		}
		if drop := rng.IntN(len(sShape) + 1); drop > 0 && rng.IntN(2) == 0 {
			sShape = sShape[drop:]
		} else if rng.IntN(4) == 0 {
			sShape = append([]int{1}, sShape...)
		}
	}
	dStrides := randomStrides(rng, shape, size)
	sStrides := randomSourceStrides(rng, sShape, size)
	if !shared {
		return stridedArray(t, p, rng, dt, shape, dStrides, rng.IntN(20)),
			stridedArray(t, p, rng, dt, sShape, sStrides, rng.IntN(20))
	}
	span := func(shape, strides []int) (lo, n int) {
		if numItems(shape) == 0 {
			return 0, 0
		}
		lo, hi, _ := reach(shape, strides)
		return lo, hi - lo + size
	}
	dlo, dn := span(shape, dStrides)
	slo, sn := span(sShape, sStrides)
	buf := patternBuffer(t, p, rng, max(dn, sn)+rng.IntN(3*size))
	offset := func(lo, n int) int {
		off := rng.IntN(buf.Len() - n + 1)
		if rng.IntN(4) != 0 {
			off -= off % size
		}
		return off - lo
	}
	return overBuffer(t, buf, dt, shape, dStrides, offset(dlo, dn)),
		overBuffer(t, buf, dt, sShape, sStrides, offset(slo, sn))
}

// TestCopyIntoRandom checks CopyInto with broadcasting, overlapping views,
// unaligned items and every item size against the one-item-at-a-time
// reference, serially and split over goroutines.
func TestCopyIntoRandom(t *testing.T) {
	for _, par := range []bool{false, true} {
		for _, shared := range []bool{false, true} {
			t.Run(fmt.Sprintf("parallel=%t/shared=%t", par, shared), func(t *testing.T) {
				if par {
					withParallel(t)
				}
				rng := rand.New(rand.NewPCG(5, 6))
				p := newTestPool(t)
				for i := range 1500 {
					dst, src := assignCase(t, p, rng, true, shared)
					want := expectAssign(dst, broadcastItems(t, src, dst.Shape()))
					if err := CopyInto(dst, src); err != nil {
						t.Fatalf("%d: %v into %v: %v", i, src, dst, err)
					}
					checkBuffer(t, fmt.Sprintf("%d: %v into %v", i, src, dst), dst, want)
				}
			})
		}
	}
}

// TestCopyDataRandom is TestCopyIntoRandom for CopyData (no broadcasting).
func TestCopyDataRandom(t *testing.T) {
	for _, par := range []bool{false, true} {
		for _, shared := range []bool{false, true} {
			t.Run(fmt.Sprintf("parallel=%t/shared=%t", par, shared), func(t *testing.T) {
				if par {
					withParallel(t)
				}
				rng := rand.New(rand.NewPCG(7, 8))
				p := newTestPool(t)
				for i := range 1500 {
					dst, src := assignCase(t, p, rng, false, shared)
					want := expectAssign(dst, items(t, src))
					if err := CopyData(dst, src); err != nil {
						t.Fatalf("%d: %v into %v: %v", i, src, dst, err)
					}
					checkBuffer(t, fmt.Sprintf("%d: %v into %v", i, src, dst), dst, want)
				}
			})
		}
	}
}

func TestCopyDataOverlap(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dst, src []Index
		want     []float64
	}{
		{"shift right", []Index{Slice(1, 10, 1)}, []Index{Slice(0, 9, 1)}, floats(0, 0, 1, 2, 3, 4, 5, 6, 7, 8)},
		{"shift left", []Index{Slice(0, 9, 1)}, []Index{Slice(1, 10, 1)}, floats(1, 2, 3, 4, 5, 6, 7, 8, 9, 9)},
		{"reverse in place", []Index{SliceStep(-1)}, []Index{Full()}, floats(9, 8, 7, 6, 5, 4, 3, 2, 1, 0)},
		{"reversed shift right", []Index{{Kind: IndexSlice, Start: 9, HasStart: true, Stop: 0, HasStop: true, Step: -1}}, []Index{{Kind: IndexSlice, Start: 8, HasStart: true, Step: -1}}, floats(0, 0, 1, 2, 3, 4, 5, 6, 7, 8)},
		{"same view", []Index{Full()}, []Index{Full()}, floats(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPool(t)
			a := arange(t, p, Float64, 10)
			dst := must(t)(a.Index(tc.dst...))
			src := must(t)(a.Index(tc.src...))
			if err := CopyData(dst, src); err != nil {
				t.Fatal(err)
			}
			if got := values(t, a); !slices.Equal(got, tc.want) {
				t.Fatalf("a = %v, want %v", got, tc.want)
			}
		})
	}
	for _, n := range []int{5, 400} { // 400: a temporary of more than 1 MiB
		t.Run(fmt.Sprintf("transpose %dx%d in place", n, n), func(t *testing.T) {
			p := newTestPool(t)
			m := arange(t, p, Float64, n, n)
			if err := CopyData(m, must(t)(m.Transpose())); err != nil {
				t.Fatal(err)
			}
			for _, idx := range indices([]int{n, n}) {
				if v, _ := m.Float64(idx...); v != float64(n*idx[1]+idx[0]) {
					t.Fatalf("m%v = %v after copying m.T into m", idx, v)
				}
			}
		})
	}
}

func TestCopyDataErrors(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Float64, 2, 3)
	b := arange(t, p, Float64, 3, 2)
	row := arange(t, p, Float64, 3)
	f32 := arange(t, p, Float32, 2, 3)
	ro := must(t)(a.AsReadOnly())
	wantErr(t, CopyData(a, b), ErrInvalid)
	wantErr(t, CopyData(a, row), ErrInvalid) // no broadcasting
	wantErr(t, CopyData(a, f32), ErrType)
	wantErr(t, CopyData(ro, a), ErrReadOnly)
	wantErr(t, CopyData(a, ro), nil)
	gone := arange(t, p, Float64, 2, 3)
	g, err := gone.Index()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Release(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, CopyData(a, g), ErrReleased)
	wantErr(t, CopyData(g, a), ErrReleased)
	z := must(t)(Empty(p, []int{0, 3}, Float64, 'C'))
	wantErr(t, CopyData(z, must(t)(Empty(p, []int{0, 3}, Float64, 'F'))), nil)
	s0 := must(t)(Empty(p, []int{}, Float64, 'C'))
	wantErr(t, CopyData(s0, must(t)(a.Index(Int(1), Int(2)))), nil)
	if v, _ := s0.Float64(); v != 5 {
		t.Fatalf("0-d copy is %v, want 5", v)
	}
}

// TestFillRandom fills random layouts of every dtype, serially and split
// over goroutines.
func TestFillRandom(t *testing.T) {
	for _, par := range []bool{false, true} {
		t.Run(fmt.Sprintf("parallel=%t", par), func(t *testing.T) {
			if par {
				withParallel(t)
			}
			rng := rand.New(rand.NewPCG(9, 10))
			p := newTestPool(t)
			for i := range 500 {
				dt := DTypes()[rng.IntN(len(DTypes()))]
				shape := randomShape(rng)
				a := stridedArray(t, p, rng, dt, shape, randomStrides(rng, shape, dt.Itemsize()), rng.IntN(20))
				item := make([]byte, dt.Itemsize())
				for k := range item {
					item[k] = byte(rng.Uint32())
				}
				want := expectAssign(a, slices.Repeat([][]byte{item}, a.Size()))
				if err := a.FillBytes(item); err != nil {
					t.Fatal(err)
				}
				checkBuffer(t, fmt.Sprintf("%d: fill %v", i, a), a, want)
			}
		})
	}
}

// TestLargeCopies runs the paths only large arrays take (fills copied
// forward in blocks, work split over goroutines, tiles with partial edges)
// for every item size: at full size for float64, with the thresholds
// lowered for the others.
func TestLargeCopies(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		dt    DType
		small bool // with small fill blocks and parallel splits
	}{{Uint8, true}, {Int16, true}, {Float32, true}, {Complex128, true}, {Float64, false}} {
		dt, size := tc.dt, tc.dt.Itemsize()
		t.Run(dt.String(), func(t *testing.T) {
			p := newTestPool(t)
			n := (5<<20)/size + 3
			if tc.small {
				withParallel(t)
				chunk := fillChunk
				fillChunk = 1 << 10
				t.Cleanup(func() { fillChunk = chunk })
				n = (5<<10)/size + 3
			}
			// 1-d items are checked directly: item i is at Offset + i*stride.
			expect := func(a *Array, item func(i int) []byte) []byte {
				want := slices.Clone(a.Buffer().Bytes())
				for i := range n {
					copy(want[a.Offset()+i*a.Strides()[0]:], item(i))
				}
				return want
			}
			for _, stride := range []int{size, -size, 2 * size} {
				a := stridedArray(t, p, rng, dt, []int{n}, []int{stride}, 5)
				v, err := a.ItemBytes(7)
				if err != nil {
					t.Fatal(err)
				}
				v = slices.Clone(v)
				want := expect(a, func(int) []byte { return v })
				if err := a.FillBytes(v); err != nil {
					t.Fatal(err)
				}
				checkBuffer(t, fmt.Sprintf("fill %v", a), a, want)
				for _, sStride := range []int{-3 * size, size} {
					src := stridedArray(t, p, rng, dt, []int{n}, []int{sStride}, 3)
					sb := src.Buffer().Bytes()
					want = expect(a, func(i int) []byte { return sb[src.Offset()+sStride*i:][:size] })
					if err := CopyInto(a, src); err != nil {
						t.Fatal(err)
					}
					checkBuffer(t, fmt.Sprintf("copy %v into %v", src, a), a, want)
				}
			}
			for _, shape := range [][]int{{300, 310}, {3, 70, 290}} {
				cs, _ := ContiguousStrides(shape, size, 'C')
				view := must(t)(stridedArray(t, p, rng, dt, shape, cs, 0).Transpose())
				want := items(t, view)
				for _, order := range []byte("CFK") {
					c := must(t)(view.Copy(p, order))
					if !slices.EqualFunc(items(t, c), want, bytes.Equal) {
						t.Fatalf("copy %c of %v: items differ", order, view)
					}
				}
			}
		})
	}
}

// TestCopyStridedOddItems runs the item-by-item kernels (items of sizes no
// dtype has; unaligned items on machines that trap on them) on random
// layouts, against offsets computed one item at a time.
func TestCopyStridedOddItems(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for i := range 400 {
		size := []int{3, 5, 12, 32}[rng.IntN(4)]
		shape := randomShape(rng)
		if len(shape) == 2 && rng.IntN(2) == 0 {
			shape = []int{40, 50} // large enough to be tiled when transposed
		}
		dStrides := randomStrides(rng, shape, size)
		sStrides := randomSourceStrides(rng, shape, size)
		if len(shape) == 2 && rng.IntN(2) == 0 {
			sStrides = []int{size, size * shape[0]}
		}
		layout := func(strides []int) (off, n int) {
			if numItems(shape) == 0 {
				return 0, 0
			}
			lo, hi, _ := reach(shape, strides)
			return -lo, hi - lo + size
		}
		dOff, dn := layout(dStrides)
		sOff, sn := layout(sStrides)
		dst, src := make([]byte, dn+1), make([]byte, sn+1)
		for k := range src {
			src[k] = byte(rng.Uint32())
		}
		want := slices.Clone(dst)
		for _, idx := range indices(shape) {
			d, s := dOff, sOff
			for k, j := range idx {
				d += j * dStrides[k]
				s += j * sStrides[k]
			}
			copy(want[d:d+size], src[s:s+size])
		}
		if numItems(shape) > 0 {
			copyStrided(unsafe.Pointer(&dst[dOff]), dStrides, unsafe.Pointer(&src[sOff]), sStrides, shape, size)
		}
		if !bytes.Equal(dst, want) {
			t.Fatalf("%d: items of %d bytes, shape %v, strides %v <- %v: wrong result", i, size, shape, dStrides, sStrides)
		}
	}
}

// TestTiledCopiesRandom copies random transposed, reversed and stepped
// layouts large enough to be copied through staging tiles, with blocks cut
// at the edges, for every item size.
func TestTiledCopiesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	p := newTestPool(t)
	for i := range 40 {
		dt := []DType{Uint8, Int16, Float32, Float64, Complex128}[i%5]
		shape := []int{20 + rng.IntN(300), 20 + rng.IntN(300)}
		if rng.IntN(3) == 0 {
			shape = append([]int{1 + rng.IntN(3)}, shape...)
		}
		dst := stridedArray(t, p, rng, dt, shape, randomStrides(rng, shape, dt.Itemsize()), 3)
		// src: the fastest axis of dst is the slowest of src.
		sStrides := make([]int, len(shape))
		sd := dt.Itemsize()
		order := rng.Perm(len(shape))
		slices.SortFunc(order, func(a, b int) int { return compareU(absU(dst.Strides()[a]), absU(dst.Strides()[b])) })
		slices.Reverse(order)
		for _, k := range order {
			step := 1 + rng.IntN(2)
			sStrides[k] = sd * step
			if rng.IntN(2) == 0 {
				sStrides[k] = -sStrides[k]
			}
			sd *= shape[k] * step
		}
		src := stridedArray(t, p, rng, dt, shape, sStrides, 3)
		want := expectAssign(dst, items(t, src))
		if err := CopyInto(dst, src); err != nil {
			t.Fatal(err)
		}
		checkBuffer(t, fmt.Sprintf("%d: %v into %v", i, src, dst), dst, want)
	}
}

// TestParallelPanic checks that a panic in any part of a split copy reaches
// the caller, and only after every part has finished.
func TestParallelPanic(t *testing.T) {
	for _, inWorker := range []bool{false, true} {
		t.Run(fmt.Sprintf("in worker=%t", inWorker), func(t *testing.T) {
			buf := make([]byte, 8000)
			base := unsafe.Pointer(&buf[0])
			var done atomic.Int32
			run := func(d, s unsafe.Pointer, n, ds, ss int) {
				defer done.Add(1)
				if (d != base) == inWorker {
					panic("boom")
				}
			}
			p := copyPlan{loop: loop{axes: []axis{{n: 1000, d: 8, s: 8}}}, k: kernels{run: run}}
			defer func() {
				if r := recover(); r != "boom" || done.Load() != 3 {
					t.Fatalf("recovered %v after %d of 3 parts", r, done.Load())
				}
			}()
			p.parallel(base, base, 3, 8)
		})
	}
}

// TestCopyLarge checks copyLarge (non-temporal stores on amd64) at sizes
// around its thresholds and at every alignment of its operands.
func TestCopyLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const most = 3<<20 + 100
	src, dst := make([]byte, most+64), make([]byte, most+64)
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	for _, n := range []int{0, 1, 1<<20 - 1, 1 << 20, 1<<20 + 16<<10 + 7, 2<<20 + 63, 3<<20 + 5} {
		for range 3 {
			do, so := rng.IntN(64), rng.IntN(64)
			clear(dst)
			copyLarge(unsafe.Pointer(&dst[do]), unsafe.Pointer(&src[so]), n)
			want := make([]byte, len(dst))
			copy(want[do:do+n], src[so:so+n])
			if !bytes.Equal(dst, want) {
				t.Fatalf("copyLarge of %d bytes, dst +%d, src +%d: wrong bytes", n, do, so)
			}
		}
	}
}
