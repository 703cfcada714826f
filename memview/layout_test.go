package memview

import (
	"math"
	"slices"
	"testing"
)

func TestNewLayout(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		shape, strides           []int
		offset, itemsize, extent int
		ok                       bool
	}{
		{"c 4x6", []int{4, 6}, []int{48, 8}, 0, 8, 192, true},
		{"reversed view", []int{4, 3}, []int{-48, 16}, 144, 8, 192, true},
		{"past the end", []int{4, 6}, []int{48, 8}, 8, 8, 192, false},
		{"negative below start", []int{4}, []int{-8}, 16, 8, 32, false},
		{"negative fits", []int{4}, []int{-8}, 24, 8, 32, true},
		{"unaligned offset allowed", []int{3}, []int{8}, 1, 8, 32, true},
		{"stride not a multiple of itemsize", []int{3}, []int{3}, 0, 4, 10, true},
		{"stride not a multiple, one short", []int{3}, []int{3}, 0, 4, 9, false},
		{"zero stride", []int{5}, []int{0}, 0, 8, 8, true},
		{"0-d", []int{}, []int{}, 184, 8, 192, true},
		{"0-d nil slices", nil, nil, 0, 1, 1, true},
		{"0-d past end", []int{}, []int{}, 185, 8, 192, false},
		{"0-d negative offset", []int{}, []int{}, -1, 8, 192, false},
		{"empty at end", []int{7, 0, 7}, []int{56, 56, 8}, 192, 8, 192, true},
		{"empty in empty buffer", []int{0}, []int{8}, 0, 8, 0, true},
		{"empty past end", []int{7, 0, 7}, []int{56, 56, 8}, 193, 8, 192, false},
		{"empty negative offset", []int{0}, []int{8}, -8, 8, 192, false},
		{"empty with wild strides", []int{0, 3}, []int{math.MaxInt, math.MinInt}, 0, 8, 0, true},
		{"nil strides mean C", []int{2, 3}, nil, 0, 4, 24, true},
		{"nil strides too big", []int{2, 3}, nil, 4, 4, 24, false},
		{"negative dim", []int{-1}, []int{8}, 0, 8, 8, false},
		{"too many dims", make([]int, 65), make([]int, 65), 0, 8, 8, false},
		{"64 dims", ones(64), make([]int, 64), 0, 8, 8, true},
		{"strides mismatch", []int{2, 3}, []int{8}, 0, 8, 48, false},
		{"itemsize 0", []int{2}, []int{1}, 0, 0, 8, false},
		{"negative extent", []int{}, []int{}, 0, 1, -1, false},
		{"size overflow", []int{1 << 40, 1 << 40}, []int{8, 8}, 0, 8, math.MaxInt, false},
		{"byte overflow", []int{1 << 61}, []int{8}, 0, 8, math.MaxInt, false},
		{"empty size overflow", []int{0, 1 << 40, 1 << 40}, []int{0, 0, 0}, 0, 8, 0, false},
		{"stride overflow", []int{3}, []int{math.MaxInt/2 + 1}, 0, 1, math.MaxInt, false},
		{"min int stride", []int{2}, []int{math.MinInt}, 0, 1, math.MaxInt, false},
		{"offset overflow", []int{2}, []int{math.MaxInt - 10}, 20, 1, math.MaxInt, false},
		{"reach sum overflow", []int{2, 2}, []int{math.MaxInt / 2, math.MaxInt / 2}, 0, 8, math.MaxInt, false},
		{"huge stride one element", []int{1}, []int{math.MaxInt}, 0, 8, 8, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewLayout(tc.shape, tc.strides, tc.offset, tc.itemsize, tc.extent)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok %t", err, tc.ok)
			}
			if err != nil {
				wantErr(t, err, ErrInvalid)
				return
			}
			if tc.strides != nil && (!slices.Equal(l.Shape, tc.shape) || !slices.Equal(l.Strides, tc.strides)) {
				t.Fatalf("layout %+v", l)
			}
			if len(tc.shape) > 0 {
				l.Shape[0] = 99 // a deep copy
				if tc.shape[0] == 99 {
					t.Fatal("NewLayout aliases shape")
				}
			}
		})
	}
}

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func TestNewLayoutMessage(t *testing.T) {
	_, err := NewLayout([]int{4, 6}, []int{48, 8}, 8, 8, 192)
	want := "memview: layout shape (4, 6) strides (48, 8) offset 8 reaches byte 200 of a 192-byte buffer: invalid layout"
	if err == nil || err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}

func TestContiguity(t *testing.T) {
	for _, tc := range []struct {
		name           string
		shape, strides []int
		itemsize       int
		c, f           bool
	}{
		{"c 4x6", []int{4, 6}, []int{48, 8}, 8, true, false},
		{"f 4x6", []int{4, 6}, []int{8, 32}, 8, false, true},
		{"1x12x1", []int{1, 12, 1}, []int{96, 8, 8}, 8, true, true},
		{"1x12x1 odd strides", []int{1, 12, 1}, []int{0, 8, -3}, 8, true, true},
		{"7x0x7", []int{7, 0, 7}, []int{56, 56, 8}, 8, true, true},
		{"7x0x7 any strides", []int{7, 0, 7}, []int{1, 2, 3}, 8, true, true},
		{"0-d", []int{}, []int{}, 8, true, true},
		{"reversed", []int{4, 3}, []int{-48, 16}, 8, false, false},
		{"every other", []int{12}, []int{16}, 8, false, false},
		{"one element big stride", []int{1}, []int{100}, 8, true, true},
		{"2x1", []int{2, 1}, []int{8, 8}, 8, true, true},
		{"1-d", []int{5}, []int{4}, 4, true, true},
		{"broadcast", []int{3, 4}, []int{0, 8}, 8, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := Layout{Shape: tc.shape, Strides: tc.strides, Itemsize: tc.itemsize}
			if c, f := l.CContiguous(), l.FContiguous(); c != tc.c || f != tc.f {
				t.Fatalf("C %t F %t, want C %t F %t", c, f, tc.c, tc.f)
			}
		})
	}
}

func TestContiguousStrides(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape []int
		order byte
		want  []int
		ok    bool
	}{
		{"c 2x3x4", []int{2, 3, 4}, 'C', []int{96, 32, 8}, true},
		{"f 2x3x4", []int{2, 3, 4}, 'F', []int{8, 16, 48}, true},
		{"c zero dim counts as 1", []int{3, 0, 4}, 'C', []int{32, 32, 8}, true},
		{"f zero dim counts as 1", []int{3, 0, 4}, 'F', []int{8, 24, 24}, true},
		{"0-d", []int{}, 'C', []int{}, true},
		{"bad order", []int{2}, 'A', nil, false},
		{"negative", []int{-2}, 'C', nil, false},
		{"overflow", []int{1 << 62, 4}, 'C', nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ContiguousStrides(tc.shape, 8, tc.order)
			if (err == nil) != tc.ok || !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
			if err != nil {
				wantErr(t, err, ErrInvalid)
			}
		})
	}
}

func TestLayoutSpan(t *testing.T) {
	for _, tc := range []struct {
		name           string
		shape, strides []int
		lo, hi, size   int
	}{
		{"c 4x6", []int{4, 6}, []int{48, 8}, 0, 192, 24},
		{"reversed", []int{4, 3}, []int{-48, 16}, -144, 40, 12},
		{"0-d", []int{}, []int{}, 0, 8, 1},
		{"empty", []int{3, 0}, []int{8, 8}, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := Layout{Shape: tc.shape, Strides: tc.strides, Itemsize: 8}
			lo, hi := l.Span()
			if lo != tc.lo || hi != tc.hi || l.Size() != tc.size || l.NBytes() != 8*tc.size || l.NDim() != len(tc.shape) {
				t.Fatalf("span [%d, %d) size %d, want [%d, %d) size %d", lo, hi, l.Size(), tc.lo, tc.hi, tc.size)
			}
		})
	}
}
