package memview

import (
	"slices"
	"testing"
)

// runningExample returns base = arange(24.).reshape(4, 6) and view =
// base[::-1, ::2].
func runningExample(t *testing.T, p *Pool) (base, view *Array) {
	t.Helper()
	flat := arange(t, p, Float64, 24)
	base = must(t)(flat.Reshape(4, 6))
	view = must(t)(base.Index(SliceStep(-1), SliceStep(2)))
	return base, view
}

func TestIndexRunningExample(t *testing.T) {
	p := newTestPool(t)
	base, view := runningExample(t, p)
	if !slices.Equal(view.Shape(), []int{4, 3}) || !slices.Equal(view.Strides(), []int{-48, 16}) || view.Offset() != 144 {
		t.Fatalf("view %v", view)
	}
	if got, _ := view.Float64(1, 2); got != 16 {
		t.Fatalf("view[1, 2] = %v, want 16 (base[2, 4])", got)
	}
	want, _ := base.ItemBytes(2, 4)
	got, _ := view.ItemBytes(1, 2)
	if &want[0] != &got[0] {
		t.Fatal("view[1, 2] does not alias base[2, 4]")
	}
	if err := view.SetFloat64(-1, 1, 2); err != nil {
		t.Fatal(err)
	}
	if v, _ := base.Float64(2, 4); v != -1 {
		t.Fatalf("write through the view not visible in base: %v", v)
	}
	if view.CContiguous() || view.FContiguous() || view.ReadOnly() || view.Buffer() != base.Buffer() {
		t.Fatal("view flags")
	}
}

func TestIndex(t *testing.T) {
	for _, tc := range []struct {
		name           string
		key            []Index
		shape, strides []int
		offset         int
		err            error
		msg            string
	}{
		{"int", []Index{Int(1)}, []int{6}, []int{8}, 48, nil, ""},
		{"negative int", []Index{Int(-1)}, []int{6}, []int{8}, 144, nil, ""},
		{"column", []Index{Full(), Int(2)}, []int{4}, []int{48}, 16, nil, ""},
		{"element", []Index{Int(1), Int(2)}, []int{}, []int{}, 64, nil, ""},
		{"rows 1:3", []Index{Slice(1, 3, 1)}, []int{2, 6}, []int{48, 8}, 48, nil, ""},
		{"reversed rows", []Index{SliceStep(-1)}, []int{4, 6}, []int{-48, 8}, 144, nil, ""},
		{"reversed every other column", []Index{Full(), SliceStep(-2)}, []int{4, 3}, []int{48, -16}, 40, nil, ""},
		{"3:0:-1", []Index{Slice(3, 0, -1)}, []int{3, 6}, []int{-48, 8}, 144, nil, ""},
		{"clamped", []Index{Slice(-100, 100, 1)}, []int{4, 6}, []int{48, 8}, 0, nil, ""},
		{"step 3", []Index{Slice(0, 4, 3)}, []int{2, 6}, []int{144, 8}, 0, nil, ""},
		{"step beyond length", []Index{Slice(1, 4, 10)}, []int{1, 6}, []int{480, 8}, 48, nil, ""},
		{"negative start and stop", []Index{Full(), Slice(-4, -1, 1)}, []int{4, 3}, []int{48, 8}, 16, nil, ""},
		{"start only", []Index{{Kind: IndexSlice, Start: 2, HasStart: true}}, []int{2, 6}, []int{48, 8}, 96, nil, ""},
		{"stop only reversed", []Index{{Kind: IndexSlice, Stop: 1, HasStop: true, Step: -1}}, []int{2, 6}, []int{-48, 8}, 144, nil, ""},
		{"empty slice", []Index{Slice(10, 20, 1)}, []int{0, 6}, []int{48, 8}, 0, nil, ""},
		{"empty reversed", []Index{Slice(0, 3, -1)}, []int{0, 6}, []int{48, 8}, 0, nil, ""},
		{"ellipsis then int", []Index{Ellipsis(), Int(0)}, []int{4}, []int{48}, 0, nil, ""},
		{"ellipsis alone", []Index{Ellipsis()}, []int{4, 6}, []int{48, 8}, 0, nil, ""},
		{"ellipsis between", []Index{Int(1), Ellipsis(), Int(1)}, []int{}, []int{}, 56, nil, ""},
		{"no key", nil, []int{4, 6}, []int{48, 8}, 0, nil, ""},
		{"newaxis", []Index{NewAxis(), Int(1), NewAxis()}, []int{1, 1, 6}, []int{0, 0, 8}, 48, nil, ""},
		{"newaxis after ellipsis", []Index{Int(1), Ellipsis(), NewAxis()}, []int{6, 1}, []int{8, 0}, 48, nil, ""},
		{"int out of range", []Index{Int(4)}, nil, nil, 0, ErrIndex, "memview: index 4 is out of bounds for axis 0 with size 4"},
		{"negative out of range", []Index{Full(), Int(-7)}, nil, nil, 0, ErrIndex, "memview: index -7 is out of bounds for axis 1 with size 6"},
		{"too many", []Index{Int(0), Int(0), Int(0)}, nil, nil, 0, ErrIndex, "memview: too many indices for array: array is 2-dimensional, but 3 were indexed"},
		{"two ellipses", []Index{Ellipsis(), Ellipsis()}, nil, nil, 0, ErrIndex, "memview: an index can only have a single ellipsis ('...')"},
		{"zero step", []Index{Slice(0, 4, 0)}, nil, nil, 0, ErrInvalid, ""},
		{"bad kind", []Index{{Kind: 9}}, nil, nil, 0, ErrIndex, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPool(t)
			base := must(t)(arange(t, p, Float64, 24).Reshape(4, 6))
			v, err := base.Index(tc.key...)
			wantErr(t, err, tc.err)
			if err != nil {
				if tc.msg != "" && err.Error() != tc.msg {
					t.Fatalf("message %q, want %q", err, tc.msg)
				}
				return
			}
			release(t, v)
			if !slices.Equal(v.Shape(), tc.shape) || !slices.Equal(v.Strides(), tc.strides) || v.Offset() != tc.offset {
				t.Fatalf("got shape %v strides %v offset %d, want %v %v %d", v.Shape(), v.Strides(), v.Offset(), tc.shape, tc.strides, tc.offset)
			}
		})
	}
}

func TestIndexEmptyKeepsValidOffset(t *testing.T) {
	p := newTestPool(t)
	for _, tc := range []struct {
		name   string
		shape  []int
		key    []Index
		want   []int
		offset int
	}{
		{"int on empty array", []int{0, 4}, []Index{Full(), Int(3)}, []int{0}, 0},
		{"reversed then past the end", []int{4}, []Index{SliceStep(-1)}, []int{4}, 24},
		{"slice on empty array", []int{4, 0}, []Index{Slice(3, 4, 1)}, []int{1, 0}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := must(t)(Empty(p, tc.shape, Float64, 'C'))
			v := must(t)(a.Index(tc.key...))
			if !slices.Equal(v.Shape(), tc.want) || v.Offset() != tc.offset {
				t.Fatalf("shape %v offset %d, want %v %d", v.Shape(), v.Offset(), tc.want, tc.offset)
			}
		})
	}
	r := must(t)(must(t)(Empty(p, []int{4}, Float64, 'C')).Index(SliceStep(-1)))
	e := must(t)(r.Index(Slice(5, 9, 1)))
	if e.Size() != 0 || e.Offset() != 24 {
		t.Fatalf("a[::-1][5:9]: size %d offset %d", e.Size(), e.Offset())
	}
}

func TestIndexReadOnly(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Int32, 5)
	ro := must(t)(a.AsReadOnly())
	v := must(t)(ro.Index(Slice(1, 3, 1)))
	if !ro.ReadOnly() || !v.ReadOnly() {
		t.Fatal("views of a read-only array must be read-only")
	}
	wantErr(t, v.SetFloat64(1, 0), ErrReadOnly)
	wantErr(t, v.FillBytes(make([]byte, 4)), ErrReadOnly)
	wantErr(t, CopyInto(v, v), ErrReadOnly)
}

func TestSliceIndices(t *testing.T) {
	// Expected values are Python's slice(start, stop, step).indices(n)
	// reduced to (start, step, len(range(...))).
	none := Index{Kind: IndexSlice}
	for _, tc := range []struct {
		name                string
		x                   Index
		n                   int
		start, step, length int
	}{
		{"full", none, 5, 0, 1, 5},
		{"full reversed", SliceStep(-1), 5, 4, -1, 5},
		{"reversed step 2", SliceStep(-2), 5, 4, -2, 3},
		{"empty axis", none, 0, 0, 1, 0},
		{"empty axis reversed", SliceStep(-1), 0, -1, -1, 0},
		{"huge bounds", Slice(-1<<62, 1<<62, 1), 5, 0, 1, 5},
		{"huge step", Slice(0, 5, 1<<62), 5, 0, 1 << 62, 1},
		{"min step", Slice(4, -10, -1<<63), 5, 4, -(1<<63 - 1), 1},
		{"stop before start", Slice(3, 1, 1), 5, 3, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, step, length, err := tc.x.SliceIndices(tc.n)
			if err != nil || start != tc.start || step != tc.step || length != tc.length {
				t.Fatalf("got (%d, %d, %d, %v), want (%d, %d, %d)", start, step, length, err, tc.start, tc.step, tc.length)
			}
		})
	}
}

func TestTranspose(t *testing.T) {
	for _, tc := range []struct {
		name           string
		shape          []int
		axes           []int
		wshape, stride []int
		err            error
	}{
		{"reverse", []int{4, 6}, nil, []int{6, 4}, []int{8, 48}, nil},
		{"explicit", []int{4, 6}, []int{1, 0}, []int{6, 4}, []int{8, 48}, nil},
		{"negative axes", []int{4, 6}, []int{-1, 0}, []int{6, 4}, []int{8, 48}, nil},
		{"identity", []int{4, 6}, []int{0, 1}, []int{4, 6}, []int{48, 8}, nil},
		{"3-d", []int{2, 3, 4}, []int{1, 0, 2}, []int{3, 2, 4}, []int{32, 96, 8}, nil},
		{"3-d reverse", []int{2, 3, 4}, nil, []int{4, 3, 2}, []int{8, 32, 96}, nil},
		{"0-d", []int{}, nil, []int{}, []int{}, nil},
		{"too few", []int{4, 6}, []int{0}, nil, nil, ErrInvalid},
		{"repeated", []int{4, 6}, []int{0, 0}, nil, nil, ErrInvalid},
		{"out of range", []int{4, 6}, []int{0, 2}, nil, nil, ErrInvalid},
		{"negative out of range", []int{4, 6}, []int{0, -3}, nil, nil, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPool(t)
			a := arange(t, p, Float64, tc.shape...)
			v, err := a.Transpose(tc.axes...)
			wantErr(t, err, tc.err)
			if err != nil {
				return
			}
			release(t, v)
			if !slices.Equal(v.Shape(), tc.wshape) || !slices.Equal(v.Strides(), tc.stride) || v.Offset() != 0 {
				t.Fatalf("got %v %v, want %v %v", v.Shape(), v.Strides(), tc.wshape, tc.stride)
			}
		})
	}
	p := newTestPool(t)
	a := arange(t, p, Float64, 4, 6)
	tr := must(t)(a.Transpose())
	if !tr.FContiguous() || tr.CContiguous() {
		t.Fatal("a.T of a C array must be F-contiguous only")
	}
	if x, _ := tr.Float64(5, 3); x != 23 {
		t.Fatalf("a.T[5, 3] = %v, want 23", x)
	}
}
