package memview

import (
	"testing"
)

// stats is a pool's statistics in one comparable value.
type stats struct{ bytes, peak, total, count, live int64 }

func statsOf(p *Pool) stats {
	return stats{p.BytesAllocated(), p.MaxMemory(), p.TotalBytesAllocated(), p.NumAllocations(), p.NumLive()}
}

func wantStats(t *testing.T, step string, p *Pool, want stats) {
	t.Helper()
	if got := statsOf(p); got != want {
		t.Fatalf("%s: stats (bytes, peak, total, count, live) = %v, want %v", step, got, want)
	}
}

// allZero reports whether every byte of b is zero.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func TestBufferCapacity(t *testing.T) {
	for _, tc := range []struct {
		name           string
		size, capacity int
	}{
		{"empty", 0, 0},
		{"one byte", 1, 64},
		{"exactly 64", 64, 64},
		{"gt alignment unaligned", 65, 128},
		{"slab size", 1000, 1024},
		{"mmap size", 1<<20 + 1, 1<<20 + 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewCheckedPool(&HostAllocator{})
			defer p.AssertEmpty(t)
			b, err := NewBuffer(p, tc.size)
			if err != nil {
				t.Fatal(err)
			}
			if b.Len() != tc.size || b.Capacity() != tc.capacity || len(b.Bytes()) != tc.size {
				t.Fatalf("size %d capacity %d bytes %d, want %d %d", b.Len(), b.Capacity(), len(b.Bytes()), tc.size, tc.capacity)
			}
			if uintptr(b.Pointer())%64 != 0 {
				t.Fatalf("address %p is not 64-byte aligned", b.Pointer())
			}
			// The pool counts the capacity, as Arrow's do.
			wantStats(t, "allocated", p, stats{int64(tc.capacity), int64(tc.capacity), int64(tc.capacity), 1, 1})
			if !allZero(b.data) {
				t.Fatal("new memory (with its padding) is not zero")
			}
			if b.Parent() != nil || b.Resizable() || !b.Mutable() || b.Device() != (Device{}) {
				t.Fatalf("parent %v resizable %t mutable %t device %v", b.Parent(), b.Resizable(), b.Mutable(), b.Device())
			}
			if err := b.Release(); err != nil {
				t.Fatal(err)
			}
			wantStats(t, "released", p, stats{0, int64(tc.capacity), int64(tc.capacity), 1, 0})
		})
	}
}

func TestBufferBadSizes(t *testing.T) {
	p := NewCheckedPool(&HostAllocator{})
	defer p.AssertEmpty(t)
	if _, err := NewBuffer(p, -1); err == nil {
		t.Fatal("NewBuffer(-1) succeeded")
	} else {
		wantErr(t, err, ErrInvalid)
	}
	_, err := NewBuffer(p, int(^uint(0)>>1))
	wantErr(t, err, ErrNoMemory)
	wantStats(t, "after failures", p, stats{})
}

func TestNewBufferFrom(t *testing.T) {
	p := NewCheckedPool(&HostAllocator{})
	defer p.AssertEmpty(t)
	for _, mutable := range []bool{true, false} {
		b, err := NewBufferFrom(p, []byte("hello, world"), mutable)
		if err != nil {
			t.Fatal(err)
		}
		if string(b.Bytes()) != "hello, world" || b.Mutable() != mutable || b.Capacity() != 64 || !allZero(b.data[12:]) {
			t.Fatalf("got %q mutable %t capacity %d", b.Bytes(), b.Mutable(), b.Capacity())
		}
		a, err := NewArray(b, Uint8, []int{12}, nil, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if a.ReadOnly() == mutable {
			t.Fatalf("array over a buffer with mutable=%t has readonly=%t", mutable, a.ReadOnly())
		}
		if err := a.Release(); err != nil {
			t.Fatal(err)
		}
		if err := b.Release(); err != nil {
			t.Fatal(err)
		}
	}
}
