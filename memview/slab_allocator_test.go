//go:build linux

package memview

import (
	"errors"
	"math/rand"
	"testing"
	"unsafe"
)

func TestSlabClass(t *testing.T) {
	for size := 0; size < slabMaxSize; size += 1 + size/7 {
		ci := slabClass(size)
		c := slabClassSize[ci]
		if c < size || (ci > 0 && slabClassSize[ci-1] >= size) {
			t.Fatalf("size %d: class %d (%d bytes) is not the smallest that holds it", size, ci, c)
		}
		if c%alignment != 0 {
			t.Fatalf("class %d bytes is not a multiple of %d", c, alignment)
		}
	}
	if got := slabClassSize[slabClass(slabMaxSize-1)]; got != slabMaxSize {
		t.Fatalf("largest class %d, want %d", got, slabMaxSize)
	}
}

func TestSlabReuseClearsAndUnmaps(t *testing.T) {
	var a SlabAllocator
	const n = 3000 // several slabs of 192-byte blocks
	blocks := make([][]byte, n)
	seen := map[uintptr]bool{}
	for i := range blocks {
		b, err := a.Allocate(130)
		if err != nil {
			t.Fatal(err)
		}
		if seen[sliceAddr(b)] {
			t.Fatalf("block %d at %#x handed out twice", i, sliceAddr(b))
		}
		seen[sliceAddr(b)] = true
		if sliceAddr(b)%alignment != 0 {
			t.Fatalf("block %d at %#x is not %d-byte aligned", i, sliceAddr(b), alignment)
		}
		whole := unsafe.Slice(&b[0], 192)
		for j := range whole {
			whole[j] = 0xee // the whole block, padding too
		}
		blocks[i] = b
	}
	rand.New(rand.NewSource(1)).Shuffle(n, func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
	for _, b := range blocks[:n/2] {
		if err := a.Free(b); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n / 2 {
		b, err := a.Allocate(192)
		if err != nil {
			t.Fatal(err)
		}
		for j, c := range b {
			if c != 0 {
				t.Fatalf("reused block %d byte %d is %#x, want 0", i, j, c)
			}
		}
		blocks[i] = b
	}
	for _, b := range blocks {
		if err := a.Free(b); err != nil {
			t.Fatal(err)
		}
	}
	if len(a.slabs) == 0 || a.empty != len(a.slabs)*slabBytes {
		t.Fatalf("after freeing everything: %d slabs, %d empty bytes", len(a.slabs), a.empty)
	}
	if err := a.Free(blocks[0]); !errors.Is(err, ErrInvalid) {
		t.Fatalf("double free: %v, want ErrInvalid", err)
	}
}

func TestSlabCacheLimit(t *testing.T) {
	var a SlabAllocator
	var blocks [][]byte
	for range 2 * slabCacheLimit / (512 << 10) {
		b, err := a.Allocate(512 << 10)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, b)
	}
	for _, b := range blocks {
		if err := a.Free(b); err != nil {
			t.Fatal(err)
		}
	}
	if a.empty > slabCacheLimit || len(a.slabs)*(512<<10) != a.empty {
		t.Fatalf("%d empty bytes in %d slabs kept, limit %d", a.empty, len(a.slabs), slabCacheLimit)
	}
}

func TestSlabRefusesWrongSizes(t *testing.T) {
	var a SlabAllocator
	if _, err := a.Allocate(slabMaxSize); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Allocate(slabMaxSize): %v, want ErrInvalid", err)
	}
	b, err := a.Allocate(100)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Free(b[:10]); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Free of a shorter slice (another class): %v, want ErrInvalid", err)
	}
	if err := a.Free(unsafe.Slice(&b[64], 30)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Free inside a block: %v, want ErrInvalid", err)
	}
	if err := a.Free(b); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkSlabAllocateFree(b *testing.B) {
	var a SlabAllocator
	for b.Loop() {
		x, _ := a.Allocate(512)
		_ = a.Free(x)
	}
}
