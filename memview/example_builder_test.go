package memview_test

import (
	"fmt"

	"github.com/memview/memview/memview"
)

// ExampleBufferBuilder builds a buffer from pieces, as Arrow's BufferBuilder
// does, under a checked pool that would report any leak with its origin.
func ExampleBufferBuilder() {
	pool := memview.NewCheckedPool(&memview.HostAllocator{})
	b := memview.NewBufferBuilder(pool)
	_ = b.Reserve(11)
	_ = b.Append([]byte("hello "))
	_ = b.Append([]byte("world"))
	buf, _ := b.Finish(true)
	fmt.Printf("%q size %d capacity %d\n", buf.Bytes(), buf.Len(), buf.Capacity())

	s, _ := buf.Slice(6, 5) // keeps buf's memory alive
	_ = buf.Release()
	fmt.Printf("slice %q, pool: %d bytes live\n", s.Bytes(), pool.BytesAllocated())
	_ = s.Release()
	fmt.Println("leaks:", len(pool.Leaks()))
	// Output:
	// "hello world" size 11 capacity 64
	// slice "world", pool: 64 bytes live
	// leaks: 0
}

// ExampleTypedBufferBuilder builds a 1-D int32 array item by item.
func ExampleTypedBufferBuilder() {
	pool := memview.NewPool(&memview.HostAllocator{})
	b := memview.NewTypedBufferBuilder[int32](pool)
	_ = b.Reserve(2)
	_ = b.Append(0x12345678)
	_ = b.Append(-0x76543210)
	a, _ := b.FinishArray(true)
	x, _ := a.Float64(1)
	fmt.Println(a.Shape(), a.DType(), x)
	_ = a.Release()
	fmt.Println(pool)
	// Output:
	// [2] int32 -1.985229328e+09
	// memview.Pool(host: 0 bytes in 0 allocations live, peak 64, 64 bytes in 1 allocations in all)
}
