package memview

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
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
