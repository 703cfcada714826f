package memview_test

import (
	"errors"
	"fmt"

	"github.com/memview/memview/memview"
)

// ExampleNewView reads and writes a strided view through typed accessors:
// no copy, no allocation per element, negative strides included.
func ExampleNewView() {
	pool := memview.NewPool(&memview.HostAllocator{})
	a, _ := memview.Zeros(pool, []int{2, 3}, memview.Float64, 'C')
	r, _ := a.Index(memview.SliceStep(-1), memview.SliceStep(-1)) // a[::-1, ::-1]
	v, _ := memview.NewView[float64](r)
	v.Set(7, 0, 0) // a[1, 2]
	x, _ := a.Float64(1, 2)
	fmt.Println("a[1, 2] =", x, "strides of the view", v.Strides())
	_ = v.Apply(func(idx []int, x float64) float64 { return x + float64(idx[1]) })
	for idx, x := range v.All() {
		if idx[0] == 0 {
			fmt.Println(idx, x)
		}
	}
	_, err := v.Get(2, 0)
	fmt.Println(errors.Is(err, memview.ErrIndex))
	_ = r.Release()
	_ = a.Release()
	fmt.Println("live bytes", pool.BytesAllocated())
	// Output:
	// a[1, 2] = 7 strides of the view [-24 -8]
	// [0 0] 7
	// [0 1] 1
	// [0 2] 2
	// true
	// live bytes 0
}

// ExampleFromSlice views a Go slice as an array without a copy, and a
// contiguous array as a slice again.
func ExampleFromSlice() {
	data := []int32{1, 2, 3, 4, 5, 6}
	a, _ := memview.FromSlice(data)
	m, _ := a.Reshape(2, 3)
	t, _ := m.Transpose()
	fmt.Println(m.Shape(), m.Strides(), t.Strides(), t.FContiguous())
	v, _ := memview.NewView[int32](t)
	v.Set(-1, 2, 0) // m[0, 2]
	fmt.Println(data)
	s, _ := memview.AsSlice[int32](m)
	fmt.Println(&s[0] == &data[0], len(s))
	_, err := memview.AsSlice[float32](m)
	fmt.Println(errors.Is(err, memview.ErrType))
	for _, x := range []*memview.Array{t, m, a} {
		_ = x.Release()
	}
	// Output:
	// [2 3] [12 4] [4 12] true
	// [1 2 -1 4 5 6]
	// true 6
	// true
}

// ExampleArray_Copy makes copies in C and Fortran order and copies between
// strided layouts in place.
func ExampleArray_Copy() {
	pool := memview.NewPool(&memview.HostAllocator{})
	a, _ := memview.FromSlice([]float64{0, 1, 2, 3, 4, 5})
	m, _ := a.Reshape(2, 3)
	f, _ := m.Copy(pool, 'F')
	fmt.Println("F copy strides", f.Strides(), f.FContiguous())
	fromF, fromM := make([]byte, 8*6), make([]byte, 8*6)
	_ = memview.ToContiguous(fromF, f, 'C')
	_ = memview.ToContiguous(fromM, m, 'C')
	fmt.Println("same elements:", string(fromF) == string(fromM))

	dst, _ := memview.Zeros(pool, []int{3}, memview.Float64, 'C')
	col, _ := m.Index(memview.Full(), memview.Int(2)) // m[:, 2] = [2 5]
	sub, _ := dst.Index(memview.Slice(0, 3, 2))       // dst[0:3:2]
	_ = memview.CopyInto(sub, col)
	v, _ := memview.NewView[float64](dst)
	fmt.Println("dst", v.At(0), v.At(1), v.At(2))
	for _, x := range []*memview.Array{sub, col, dst, f, m, a} {
		_ = x.Release()
	}
	fmt.Println("live bytes", pool.BytesAllocated())
	// Output:
	// F copy strides [8 16] true
	// same elements: true
	// dst 2 0 5
	// live bytes 0
}

// ExampleNewCheckedPool finds a leak: the checked pool names the call site of
// every live allocation (in tests, defer pool.AssertEmpty(t) fails on one).
func ExampleNewCheckedPool() {
	pool := memview.NewCheckedPool(&memview.HostAllocator{})
	a, _ := memview.Empty(pool, []int{100}, memview.Uint8, 'C')
	b, _ := memview.Empty(pool, []int{10}, memview.Float64, 'C')
	_ = a.Release()
	fmt.Println("live", pool.NumLive(), "bytes", pool.BytesAllocated(), "leaks", len(pool.Leaks()))
	_ = b.Release()
	fmt.Println("live", pool.NumLive(), "allocations", pool.NumAllocations(), "total bytes", pool.TotalBytesAllocated())
	// Output:
	// live 1 bytes 128 leaks 1
	// live 0 allocations 2 total bytes 256
}

// ExampleNewProxyPool counts one part of a program's allocations while the
// pool underneath counts them too.
func ExampleNewProxyPool() {
	base := memview.NewPool(&memview.HostAllocator{})
	part := memview.NewProxyPool(base)
	a, _ := memview.Empty(part, []int{1000}, memview.Uint8, 'C')
	b, _ := memview.Empty(base, []int{64}, memview.Uint8, 'C')
	fmt.Println("part", part.BytesAllocated(), "base", base.BytesAllocated())
	_ = a.Release()
	_ = b.Release()
	fmt.Println("part", part.BytesAllocated(), "base", base.BytesAllocated(), "max", base.MaxMemory())
	// Output:
	// part 1024 base 1088
	// part 0 base 0 max 1088
}

// ExampleBuffer_Slice shares a buffer's bytes: a slice keeps its parent alive,
// and an array can be laid over the bytes.
func ExampleBuffer_Slice() {
	pool := memview.NewPool(&memview.HostAllocator{})
	buf, _ := memview.NewBufferFrom(pool, []byte("hello, world"), true)
	s, _ := buf.Slice(7, 5)
	fmt.Printf("%q %d %v\n", s.Bytes(), buf.Capacity(), s.Mutable())
	_ = buf.Release() // the slice still holds the memory
	fmt.Printf("%q %d\n", s.Bytes(), pool.BytesAllocated())
	_ = s.Release()
	fmt.Println("live bytes", pool.BytesAllocated())
	// Output:
	// "world" 64 false
	// "world" 64
	// live bytes 0
}
