package cuda_test

import (
	"errors"
	"fmt"

	"github.com/memview/memview/cuda"
	"github.com/memview/memview/memview"
)

// Example asks for devices the way memview does at import: no driver or no
// device is ErrNoDevice, not a failure, and everything on the host still works.
func Example() {
	n, err := cuda.DeviceCount()
	if errors.Is(err, cuda.ErrNoDevice) {
		n = 0 // no driver, or no device: the host-only case
	} else if err != nil {
		fmt.Println("driver error:", err)
		return
	}
	fmt.Println("devices counted:", n >= 0, "Available agrees:", cuda.Available() == (n > 0))
	// Output:
	// devices counted: true Available agrees: true
}

// ExampleCopy copies between arrays of any two kinds of memory; between two
// host arrays it needs no driver at all.
func ExampleCopy() {
	pool := memview.NewPool(&memview.HostAllocator{})
	src, _ := memview.FromSlice([]float32{1, 2, 3, 4})
	rev, _ := src.Index(memview.SliceStep(-1))
	dst, _ := memview.Zeros(pool, []int{4}, memview.Float32, 'C')
	if err := cuda.Copy(dst, rev, nil); err != nil {
		fmt.Println(err)
	}
	s, _ := memview.AsSlice[float32](dst)
	fmt.Println(s)
	for _, a := range []*memview.Array{dst, rev, src} {
		_ = a.Release()
	}
	// Output:
	// [4 3 2 1]
}
