package memview

import (
	"errors"
	"runtime"
	"testing"
	"unsafe"
)

func TestFromSliceSharesMemory(t *testing.T) {
	s := []float64{1, 2, 3, 4}
	a, err := FromSlice(s)
	if err != nil {
		t.Fatal(err)
	}
	release(t, a)
	if a.DType() != Float64 || a.NDim() != 1 || a.Shape()[0] != 4 || a.ReadOnly() {
		t.Fatalf("FromSlice: got %v", a)
	}
	if a.Pointer() != unsafe.Pointer(&s[0]) {
		t.Fatal("FromSlice copied the slice")
	}
	if err := a.SetFloat64(-1, 2); err != nil {
		t.Fatal(err)
	}
	if s[2] != -1 {
		t.Fatalf("write through the array not seen in the slice: %v", s)
	}
	back, err := AsSlice[float64](a)
	if err != nil {
		t.Fatal(err)
	}
	if &back[0] != &s[0] || len(back) != 4 {
		t.Fatal("AsSlice does not alias the slice")
	}
}

// The backing array of a slice no Go variable refers to any more stays
// valid, pinned and unmoved, while an array over it lives.
func TestFromSliceOutlivesTheSlice(t *testing.T) {
	var pinnedGC int
	a := func() *Array {
		s := make([]int32, 1000)
		for i := range s {
			s[i] = int32(i)
		}
		a, err := FromSlice(s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}()
	for range 3 {
		runtime.GC()
		garbage := make([][]int32, 100) // churn the heap where the slice was
		for i := range garbage {
			garbage[i] = make([]int32, 1000)
		}
		pinnedGC++
	}
	v, err := NewView[int32](a)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if got := v.At(i); got != int32(i) {
			t.Fatalf("after %d collections element %d is %d", pinnedGC, i, got)
		}
	}
	view, err := a.Index(Slice(10, 20, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	vv, err := NewView[int32](view) // the view alone keeps the memory pinned
	if err != nil {
		t.Fatal(err)
	}
	if vv.At(0) != 10 || vv.At(9) != 19 {
		t.Fatalf("view after release of its parent: %d %d", vv.At(0), vv.At(9))
	}
	if err := view.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestFromSliceEveryElementType(t *testing.T) {
	check := func(a *Array, err error, want DType, n int) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		release(t, a)
		if a.DType() != want || a.Size() != n || a.NBytes() != n*want.Itemsize() {
			t.Fatalf("got %v, want %d of %s", a, n, want)
		}
	}
	a1, err := FromSlice([]bool{true, false})
	check(a1, err, Bool, 2)
	a2, err := FromSlice([]int8{1})
	check(a2, err, Int8, 1)
	a3, err := FromSlice([]uint16{1, 2, 3})
	check(a3, err, Uint16, 3)
	a4, err := FromSlice([]complex64{1i})
	check(a4, err, Complex64, 1)
	a5, err := FromSlice([]complex128{1, 2})
	check(a5, err, Complex128, 2)
	a6, err := FromSlice([]byte("abc"))
	check(a6, err, Uint8, 3)
	empty, err := FromSlice([]float32(nil))
	check(empty, err, Float32, 0)
}

func TestAsSliceRefusals(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Float64, 3, 4)
	if _, err := AsSlice[float32](a); !errors.Is(err, ErrType) {
		t.Errorf("AsSlice of the wrong type: %v", err)
	}
	tr, err := a.Transpose()
	if err != nil {
		t.Fatal(err)
	}
	release(t, tr)
	if _, err := AsSlice[float64](tr); !errors.Is(err, ErrInvalid) {
		t.Errorf("AsSlice of a transposed array: %v", err)
	}
	s, err := AsSlice[float64](a)
	if err != nil || len(s) != 12 || s[5] != 5 {
		t.Fatalf("AsSlice of a 2-D contiguous array: %v %v", s, err)
	}
	if _, err := AsSlice[float64](nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("AsSlice(nil): %v", err)
	}
	b := arange(t, p, Float64, 2)
	c, err := b.Index()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := AsSlice[float64](c); !errors.Is(err, ErrReleased) {
		t.Errorf("AsSlice of a released array: %v", err)
	}
}
