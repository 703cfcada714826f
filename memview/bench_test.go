package memview

import (
	"fmt"
	"testing"
)

// benchArray returns a touched float64 array of shape from a host pool,
// released when the benchmark ends.
func benchArray(b *testing.B, p *Pool, shape ...int) *Array {
	b.Helper()
	a, err := Empty(p, shape, Float64, 'C')
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = a.Release() })
	if err := a.FillBytes(make([]byte, 8)); err != nil { // fault the pages in
		b.Fatal(err)
	}
	return a
}

// benchView is must for benchmarks.
func benchView(b *testing.B) func(*Array, error) *Array {
	return func(a *Array, err error) *Array {
		b.Helper()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = a.Release() })
		return a
	}
}

// benchCopy times CopyInto(dst, src) and reports dst bytes per second.
func benchCopy(b *testing.B, dst, src *Array) {
	b.Helper()
	b.SetBytes(int64(dst.NBytes()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := CopyInto(dst, src); err != nil {
			b.Fatal(err)
		}
	}
}

// copyCase builds dst and src for one copy case of n bytes of float64.
type copyCase struct {
	name string
	make func(b *testing.B, p *Pool, n int) (dst, src *Array)
}

var copyCases = []copyCase{
	{"Contiguous", func(b *testing.B, p *Pool, n int) (*Array, *Array) {
		return benchArray(b, p, n/8), benchArray(b, p, n/8)
	}},
	{"Step2", func(b *testing.B, p *Pool, n int) (*Array, *Array) {
		return benchArray(b, p, n/8), benchView(b)(benchArray(b, p, n/4).Index(SliceStep(2)))
	}},
	{"Reversed", func(b *testing.B, p *Pool, n int) (*Array, *Array) {
		return benchArray(b, p, n/8), benchView(b)(benchArray(b, p, n/8).Index(SliceStep(-1)))
	}},
	{"Transpose", func(b *testing.B, p *Pool, n int) (*Array, *Array) {
		rows := 1 << 12
		if n < 64<<20 {
			rows = 1 << 9
		}
		cols := n / 8 / rows
		return benchArray(b, p, cols, rows), benchView(b)(benchArray(b, p, rows, cols).Transpose())
	}},
	{"BroadcastRow", func(b *testing.B, p *Pool, n int) (*Array, *Array) {
		return benchArray(b, p, n/8/1024, 1024), benchArray(b, p, 1024)
	}},
}

func BenchmarkCopyInto(b *testing.B) {
	for _, size := range []int{1 << 20, 64 << 20} {
		for _, c := range copyCases {
			b.Run(fmt.Sprintf("%s/%dMiB", c.name, size>>20), func(b *testing.B) {
				p := NewPool(&HostAllocator{})
				dst, src := c.make(b, p, size)
				benchCopy(b, dst, src)
			})
		}
	}
}

// BenchmarkFill times FillBytes of a contiguous and a strided array.
func BenchmarkFill(b *testing.B) {
	item := []byte{0, 0, 0, 0, 0, 0, 8, 64} // 3.0
	for _, size := range []int{1 << 20, 64 << 20} {
		for _, step := range []int{1, 2} {
			b.Run(fmt.Sprintf("Step%d/%dMiB", step, size>>20), func(b *testing.B) {
				p := NewPool(&HostAllocator{})
				a := benchView(b)(benchArray(b, p, size/8*step).Index(SliceStep(step)))
				b.SetBytes(int64(a.NBytes()))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := a.FillBytes(item); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCopy times Array.Copy (allocation included) of a transposed view.
func BenchmarkCopy(b *testing.B) {
	for _, order := range []byte{'C', 'K'} {
		b.Run(fmt.Sprintf("Transposed/%c/64MiB", order), func(b *testing.B) {
			p := NewPool(&HostAllocator{})
			src := benchView(b)(benchArray(b, p, 2048, 4096).Transpose())
			b.SetBytes(int64(src.NBytes()))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c, err := src.Copy(p, order)
				if err != nil {
					b.Fatal(err)
				}
				_ = c.Release()
			}
		})
	}
}

// benchEmpty allocates and releases an n-byte array per iteration.
func benchEmpty(b *testing.B, n int) {
	p := NewPool(&HostAllocator{})
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		a, err := Empty(p, []int{n}, Uint8, 'C')
		if err != nil {
			b.Fatal(err)
		}
		if err := a.Release(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEmpty4KiB(b *testing.B)   { benchEmpty(b, 4<<10) }
func BenchmarkEmpty256MiB(b *testing.B) { benchEmpty(b, 256<<20) }

// BenchmarkCopyIntoSmall times the fixed cost of a copy: 16 float64, from a
// transposed view.
func BenchmarkCopyIntoSmall(b *testing.B) {
	p := NewPool(&HostAllocator{})
	dst := benchArray(b, p, 4, 4)
	src := benchView(b)(benchArray(b, p, 4, 4).Transpose())
	b.ReportAllocs()
	benchCopy(b, dst, src)
}
