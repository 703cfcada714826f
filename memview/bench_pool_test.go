package memview

import (
	"fmt"
	"io"
	"testing"
)

// poolSink keeps the anchor's slices from being optimised away.
var poolSink []byte

// benchPools are the pools BenchmarkAllocFree measures, by name.
var benchPools = []struct {
	name string
	make func() *Pool
}{
	{"host", func() *Pool { return NewPool(&HostAllocator{}) }},
	{"mmap", func() *Pool { return NewPool(&MmapAllocator{}) }},
	{"proxy", func() *Pool { return NewProxyPool(NewPool(&HostAllocator{})) }},
	{"logging", func() *Pool { return NewLoggingPool(NewPool(&HostAllocator{}), io.Discard) }},
	{"checked", func() *Pool { return NewCheckedPool(&HostAllocator{}) }},
}

// BenchmarkAllocFree times one allocation and its free through each pool,
// against Go's make([]byte, n) (the "make" case, freed by the collector),
// for 64 B, 4 KiB, 1 MiB and 256 MiB. benchmarks/bench_memory.py prints the
// ratios of one run.
func BenchmarkAllocFree(b *testing.B) {
	for _, n := range []int{64, 4 << 10, 1 << 20, 256 << 20} {
		b.Run(fmt.Sprintf("size=%d", n), func(b *testing.B) {
			b.Run("make", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					poolSink = make([]byte, n)
				}
				poolSink = nil
			})
			for _, bp := range benchPools {
				b.Run(bp.name, func(b *testing.B) {
					p := bp.make()
					defer p.AssertEmpty(b)
					for i := 0; i < b.N; i++ {
						m, err := p.Allocate(n)
						if err != nil {
							b.Fatal(err)
						}
						if err := p.Free(m); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
