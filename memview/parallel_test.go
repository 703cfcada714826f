package memview

import "testing"

func TestSetParallelismOneNeverSplits(t *testing.T) {
	withParallel(t)
	p := newTestPool(t)
	src := release(t, mustEmpty(t, p, 4096))
	dst := release(t, mustEmpty(t, p, 4096))
	for _, tc := range []struct {
		n     int
		split bool
	}{{0, true}, {1, false}, {3, true}} {
		old := SetParallelism(tc.n)
		before := parallelSplits.Load()
		if err := CopyInto(dst, src); err != nil {
			t.Fatal(err)
		}
		if err := dst.FillBytes(make([]byte, 8)); err != nil {
			t.Fatal(err)
		}
		SetParallelism(old)
		if got := parallelSplits.Load() > before; got != tc.split {
			t.Errorf("SetParallelism(%d): split over goroutines = %t, want %t", tc.n, got, tc.split)
		}
	}
}

func mustEmpty(t *testing.T, p *Pool, n int) *Array {
	t.Helper()
	a, err := Empty(p, []int{n}, Float64, 'C')
	if err != nil {
		t.Fatal(err)
	}
	return a
}
