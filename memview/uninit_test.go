//go:build linux

package memview

import (
	"testing"
	"unsafe"
)

// TestSlabAllocateUninitKeepsBytes: a reused block handed out by
// AllocateUninit keeps what it held, Allocate clears the size asked for, and
// both are counted and freed alike.
func TestSlabAllocateUninitKeepsBytes(t *testing.T) {
	var a SlabAllocator
	b, err := a.Allocate(100 << 10)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = byte(i) | 1
	}
	addr := sliceAddr(b)
	if err := a.Free(b); err != nil {
		t.Fatal(err)
	}
	u, err := a.AllocateUninit(99 << 10) // the same class: the same block again
	if err != nil {
		t.Fatal(err)
	}
	if sliceAddr(u) != addr || len(u) != 99<<10 || cap(u) != 99<<10 {
		t.Fatalf("AllocateUninit gave %#x len %d cap %d, want the freed block %#x, len and cap %d",
			sliceAddr(u), len(u), cap(u), addr, 99<<10)
	}
	for i := range u {
		if u[i] != byte(i)|1 {
			t.Fatalf("byte %d is %#x: AllocateUninit cleared the block", i, u[i])
		}
	}
	if err := a.Free(u); err != nil {
		t.Fatal(err)
	}
	z, err := a.Allocate(100 << 10)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range z {
		if c != 0 {
			t.Fatalf("byte %d of a reused block is %#x after Allocate", i, c)
		}
	}
	if err := a.Free(z); err != nil {
		t.Fatal(err)
	}
}

// TestPoolAllocateUninit: counted as Allocate; an allocator without
// AllocateUninit (a checked pool's) zero-fills.
func TestPoolAllocateUninit(t *testing.T) {
	p := NewPool(&HostAllocator{})
	b, err := p.AllocateUninit(1000)
	if err != nil {
		t.Fatal(err)
	}
	if p.BytesAllocated() != 1000 || p.NumLive() != 1 {
		t.Fatalf("after AllocateUninit: %d bytes, %d live; want 1000, 1", p.BytesAllocated(), p.NumLive())
	}
	if err := p.Free(b); err != nil {
		t.Fatal(err)
	}
	if p.BytesAllocated() != 0 || p.NumLive() != 0 {
		t.Fatalf("after Free: %d bytes, %d live", p.BytesAllocated(), p.NumLive())
	}
	g := NewPool(&GoAllocator{}) // no AllocateUninit: Allocate
	c, err := g.AllocateUninit(64)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range c {
		if x != 0 {
			t.Fatalf("byte %d: %#x", i, x)
		}
	}
	if err := g.Free(c); err != nil {
		t.Fatal(err)
	}
}

// TestEmptyUninitCapacityTailIsZero: the bytes past the array's size within
// its buffer's capacity are zero even when the block was reused, and a large
// array (a fresh mapping) is zero-filled anyway.
func TestEmptyUninitCapacityTailIsZero(t *testing.T) {
	p := NewPool(&HostAllocator{})
	first, err := Empty(p, []int{1000}, Uint8, 'C')
	if err != nil {
		t.Fatal(err)
	}
	whole := unsafe.Slice((*byte)(first.Pointer()), 1024) // the capacity: 1000 rounded up to 64
	for i := range whole {
		whole[i] = 0xab
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	a, err := EmptyUninit(p, []int{999}, Uint8, 'C')
	if err != nil {
		t.Fatal(err)
	}
	if a.Pointer() != first.Pointer() {
		t.Skip("the block was not reused: nothing to check") // another test's allocation took it
	}
	tail := unsafe.Slice((*byte)(a.Pointer()), 1024)[999:]
	for i, c := range tail {
		if c != 0 {
			t.Fatalf("capacity byte %d is %#x", 999+i, c)
		}
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	big, err := EmptyUninit(p, []int{2 << 20}, Uint8, 'C')
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range unsafe.Slice((*byte)(big.Pointer()), 2<<20) {
		if c != 0 {
			t.Fatalf("byte %d of a fresh mapping is %#x", i, c)
		}
	}
	if err := big.Release(); err != nil {
		t.Fatal(err)
	}
	if p.NumLive() != 0 {
		t.Fatalf("%d allocations live", p.NumLive())
	}
}
