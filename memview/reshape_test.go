package memview

import (
	"slices"
	"testing"
)

func TestReshape(t *testing.T) {
	// Each case starts from base = arange(24.).reshape(4, 6) and a view of it;
	// expected strides are NumPy's.
	for _, tc := range []struct {
		name           string
		view           []Index
		transpose      bool
		shape          []int
		wshape, stride []int
		offset         int
		err            error
		msg            string
	}{
		{"flatten", nil, false, []int{24}, []int{24}, []int{8}, 0, nil, ""},
		{"infer", nil, false, []int{2, -1, 3}, []int{2, 4, 3}, []int{96, 24, 8}, 0, nil, ""},
		{"flatten infer", nil, false, []int{-1}, []int{24}, []int{8}, 0, nil, ""},
		{"transposed split", nil, true, []int{6, 2, 2}, []int{6, 2, 2}, []int{8, 96, 48}, 0, nil, ""},
		{"transposed flatten needs copy", nil, true, []int{24}, nil, nil, 0, ErrInvalid,
			"memview: reshape of a non-contiguous view needs a copy; copy the array first"},
		{"every other column merges", []Index{Full(), SliceStep(2)}, false, []int{12}, []int{12}, []int{16}, 0, nil, ""},
		{"first columns cannot merge", []Index{Full(), Slice(0, 3, 1)}, false, []int{12}, nil, nil, 0, ErrInvalid, ""},
		{"first columns split rows", []Index{Full(), Slice(0, 3, 1)}, false, []int{2, 2, 3}, []int{2, 2, 3}, []int{96, 48, 8}, 0, nil, ""},
		{"reversed rows cannot merge", []Index{SliceStep(-1)}, false, []int{24}, nil, nil, 0, ErrInvalid, ""},
		{"reversed rows split", []Index{SliceStep(-1)}, false, []int{2, 2, 6}, []int{2, 2, 6}, []int{-96, -48, 8}, 144, nil, ""},
		{"size-1 axes ignored", []Index{NewAxis(), Full(), NewAxis(), Slice(0, 3, 1)}, false, []int{4, 3}, []int{4, 3}, []int{48, 8}, 0, nil, ""},
		{"trailing 1", []Index{NewAxis(), Full(), NewAxis(), Slice(0, 3, 1)}, false, []int{4, 3, 1}, []int{4, 3, 1}, []int{48, 8, 8}, 0, nil, ""},
		{"leading 1", []Index{Full(), Slice(0, 3, 1)}, false, []int{1, 4, 3}, []int{1, 4, 3}, []int{192, 48, 8}, 0, nil, ""},
		{"single element", []Index{Slice(1, 2, 1), Slice(2, 3, 1)}, false, []int{1, 1, 1}, []int{1, 1, 1}, []int{8, 8, 8}, 64, nil, ""},
		{"size mismatch", nil, false, []int{5, 5}, nil, nil, 0, ErrInvalid, ""},
		{"two unknowns", nil, false, []int{-1, -1}, nil, nil, 0, ErrInvalid, ""},
		{"unknown does not divide", nil, false, []int{-1, 5}, nil, nil, 0, ErrInvalid, ""},
		{"negative", nil, false, []int{-2, -12}, nil, nil, 0, ErrInvalid, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPool(t)
			a := must(t)(arange(t, p, Float64, 24).Reshape(4, 6))
			if tc.transpose {
				a = must(t)(a.Transpose())
			}
			a = must(t)(a.Index(tc.view...))
			want := values(t, a)
			r, err := a.Reshape(tc.shape...)
			wantErr(t, err, tc.err)
			if err != nil {
				if tc.msg != "" && err.Error() != tc.msg {
					t.Fatalf("message %q, want %q", err, tc.msg)
				}
				return
			}
			release(t, r)
			if !slices.Equal(r.Shape(), tc.wshape) || !slices.Equal(r.Strides(), tc.stride) || r.Offset() != tc.offset {
				t.Fatalf("got %v %v %d, want %v %v %d", r.Shape(), r.Strides(), r.Offset(), tc.wshape, tc.stride, tc.offset)
			}
			if got := values(t, r); !slices.Equal(got, want) {
				t.Fatalf("elements in C order %v, want %v", got, want)
			}
			if r.Buffer() != a.Buffer() {
				t.Fatal("reshape copied")
			}
		})
	}
}

func TestReshapeEmpty(t *testing.T) {
	p := newTestPool(t)
	a := must(t)(Empty(p, []int{0, 4}, Float64, 'C'))
	r := must(t)(a.Reshape(0, 2, 2))
	if !slices.Equal(r.Shape(), []int{0, 2, 2}) || !slices.Equal(r.Strides(), []int{32, 16, 8}) {
		t.Fatalf("got %v %v", r.Shape(), r.Strides())
	}
	if _, err := a.Reshape(-1, 0); err == nil {
		t.Fatal("reshape of size 0 into (-1, 0) succeeded")
	}
	s := must(t)(Empty(p, []int{}, Float64, 'C'))
	r = must(t)(s.Reshape(1, 1))
	if !slices.Equal(r.Shape(), []int{1, 1}) {
		t.Fatalf("0-d reshape %v", r.Shape())
	}
}
