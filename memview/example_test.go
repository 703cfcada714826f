package memview_test

import (
	"fmt"

	"github.com/memview/memview/memview"
)

// Example builds base = arange(24.).reshape(4, 6), takes the view
// base[::-1, ::2] without copying and writes through it.
func Example() {
	pool := memview.NewPool(&memview.HostAllocator{})
	flat, _ := memview.Empty(pool, []int{24}, memview.Float64, 'C')
	for i := 0; i < 24; i++ {
		_ = flat.SetFloat64(float64(i), i)
	}
	base, _ := flat.Reshape(4, 6)
	view, _ := base.Index(memview.SliceStep(-1), memview.SliceStep(2))
	fmt.Println("shape", view.Shape(), "strides", view.Strides(), "offset", view.Offset())

	x, _ := view.Float64(1, 2)
	fmt.Println("view[1, 2] =", x)
	_ = view.SetFloat64(-1, 1, 2)
	y, _ := base.Float64(2, 4)
	fmt.Println("base[2, 4] =", y)

	for _, a := range []*memview.Array{view, base, flat} {
		_ = a.Release()
	}
	fmt.Println("live bytes", pool.BytesAllocated())
	// Output:
	// shape [4 3] strides [-48 16] offset 144
	// view[1, 2] = 16
	// base[2, 4] = -1
	// live bytes 0
}

// ExampleToContiguous reads a transposed view's elements in C order and
// writes them back through a reversed view.
func ExampleToContiguous() {
	pool := memview.NewPool(&memview.HostAllocator{})
	a, _ := memview.Empty(pool, []int{2, 3}, memview.Uint8, 'C')
	_ = memview.FromContiguous(a, []byte{1, 2, 3, 4, 5, 6}, 'C')
	t, _ := a.Transpose()
	out := make([]byte, t.NBytes())
	_ = memview.ToContiguous(out, t, 'C')
	fmt.Println("a.T in C order:", out)
	_ = memview.ToContiguous(out, t, 'A') // t is F-contiguous: memory order
	fmt.Println("a.T in A order:", out)

	r, _ := a.Index(memview.SliceStep(-1), memview.SliceStep(-1))
	_ = memview.FromContiguous(r, []byte{1, 2, 3, 4, 5, 6}, 'C')
	_ = memview.ToContiguous(out, a, 'C')
	fmt.Println("a after writing a[::-1, ::-1]:", out)

	for _, x := range []*memview.Array{r, t, a} {
		_ = x.Release()
	}
	fmt.Println("live bytes", pool.BytesAllocated())
	// Output:
	// a.T in C order: [1 4 2 5 3 6]
	// a.T in A order: [1 2 3 4 5 6]
	// a after writing a[::-1, ::-1]: [6 5 4 3 2 1]
	// live bytes 0
}
