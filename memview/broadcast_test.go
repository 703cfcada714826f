package memview

import (
	"errors"
	"slices"
	"testing"
)

func TestBroadcastTo(t *testing.T) {
	p := NewPool(NewCheckedAllocator(&GoAllocator{}))
	a, err := Empty(p, []int{3}, Float64, 'C')
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := a.SetFloat64(float64(i+1), i); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		_ = a.Release()
		if p.NumLive() != 0 {
			t.Fatalf("%d allocations live", p.NumLive())
		}
	}()
	b, err := a.BroadcastTo([]int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if !slices.Equal(b.Strides(), []int{0, 8}) || !b.ReadOnly() {
		t.Fatalf("strides %v readonly %v", b.Strides(), b.ReadOnly())
	}
	if v, _ := b.Float64(1, 2); v != 3 {
		t.Fatalf("b[1,2] = %v", v)
	}
	for _, bad := range [][]int{{2}, {3, 2}, {-1, 3}} {
		if _, err := a.BroadcastTo(bad); !errors.Is(err, ErrInvalid) {
			t.Fatalf("BroadcastTo(%v): %v", bad, err)
		}
	}
}
