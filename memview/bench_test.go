package memview

import "testing"

// benchCopyInto copies n bytes of float64 elements per iteration, from a
// contiguous source or from every other element of a source twice as large.
func benchCopyInto(b *testing.B, n int, strided bool) {
	p := NewPool(&HostAllocator{})
	dst, err := Empty(p, []int{n / 8}, Float64, 'C')
	if err != nil {
		b.Fatal(err)
	}
	srcLen := n / 8
	if strided {
		srcLen *= 2
	}
	base, err := Empty(p, []int{srcLen}, Float64, 'C')
	if err != nil {
		b.Fatal(err)
	}
	src := base
	if strided {
		if src, err = base.Index(SliceStep(2)); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := CopyInto(dst, src); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if strided {
		_ = src.Release()
	}
	_ = base.Release()
	_ = dst.Release()
}

func BenchmarkCopyIntoContiguous1MiB(b *testing.B)  { benchCopyInto(b, 1<<20, false) }
func BenchmarkCopyIntoContiguous64MiB(b *testing.B) { benchCopyInto(b, 64<<20, false) }
func BenchmarkCopyIntoStrided1MiB(b *testing.B)     { benchCopyInto(b, 1<<20, true) }
func BenchmarkCopyIntoStrided64MiB(b *testing.B)    { benchCopyInto(b, 64<<20, true) }

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
