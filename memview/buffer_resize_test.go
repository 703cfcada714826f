package memview

import (
	"bytes"
	"testing"
)

func TestResizableBuffer(t *testing.T) {
	p := NewCheckedPool(&HostAllocator{})
	defer p.AssertEmpty(t)
	b, err := NewResizableBuffer(p, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	copy(b.Bytes(), "0123456789")
	steps := []struct {
		name           string
		op             func() error
		size, capacity int
		contents       string
	}{
		{"grow within capacity", func() error { return b.Resize(40, true) }, 40, 64, "0123456789"},
		{"grow beyond", func() error { return b.Resize(100, false) }, 100, 128, "0123456789"},
		{"shrink keeps capacity", func() error { return b.Resize(5, false) }, 5, 128, "01234"},
		{"grow again: zeros", func() error { return b.Resize(10, false) }, 10, 128, "01234"},
		{"shrink to fit", func() error { return b.Resize(3, true) }, 3, 64, "012"},
		{"reserve less is a no-op", func() error { return b.Reserve(10) }, 3, 64, "012"},
		{"reserve rounds up", func() error { return b.Reserve(1000) }, 3, 1024, "012"},
		{"to zero", func() error { return b.Resize(0, true) }, 0, 0, ""},
		{"from zero", func() error { return b.Resize(70, true) }, 70, 128, ""},
	}
	for _, s := range steps {
		if err := s.op(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if b.Len() != s.size || b.Capacity() != s.capacity {
			t.Fatalf("%s: size %d capacity %d, want %d %d", s.name, b.Len(), b.Capacity(), s.size, s.capacity)
		}
		got := b.data[:b.capacity]
		if !bytes.HasPrefix(got, []byte(s.contents)) || !allZero(got[len(s.contents):]) {
			t.Fatalf("%s: contents %q, want %q then zeros to the capacity", s.name, got, s.contents)
		}
		if uintptr(b.Pointer())%64 != 0 {
			t.Fatalf("%s: unaligned", s.name)
		}
		if p.BytesAllocated() != int64(s.capacity) || p.NumLive() != 1 {
			t.Fatalf("%s: pool has %d bytes in %d allocations, want the capacity %d in 1", s.name, p.BytesAllocated(), p.NumLive(), s.capacity)
		}
	}
}

func TestResizeRefused(t *testing.T) {
	p := NewCheckedPool(&HostAllocator{})
	defer p.AssertEmpty(t)
	fixed, err := NewBuffer(p, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer fixed.Release()
	wantErr(t, fixed.Resize(16, true), ErrInvalid)
	wantErr(t, fixed.Reserve(16), ErrInvalid)

	b, err := NewResizableBuffer(p, 64)
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, b.Resize(-1, true), ErrInvalid)
	wantErr(t, b.Reserve(-1), ErrInvalid)
	holders := []struct {
		name string
		hold func() (release func() error)
	}{
		{"an array", func() func() error {
			a, err := NewArray(b, Float64, []int{8}, nil, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			return a.Release
		}},
		{"a slice", func() func() error {
			s, err := b.Slice(8, 8)
			if err != nil {
				t.Fatal(err)
			}
			return s.Release
		}},
		{"a view", func() func() error {
			v, err := b.ViewOn(Device{})
			if err != nil {
				t.Fatal(err)
			}
			return v.Release
		}},
		{"an export", func() func() error {
			b.Export()
			return b.Unexport
		}},
	}
	for _, h := range holders {
		t.Run(h.name, func(t *testing.T) {
			release := h.hold()
			before := statsOf(p)
			wantErr(t, b.Resize(1000, true), ErrExported)
			wantErr(t, b.Reserve(1000), ErrExported)
			if b.Len() != 64 || b.Capacity() != 64 || statsOf(p) != before {
				t.Fatalf("a refused resize changed the buffer: size %d capacity %d", b.Len(), b.Capacity())
			}
			if err := release(); err != nil {
				t.Fatal(err)
			}
			if err := b.Resize(65, false); err != nil {
				t.Fatalf("resize once %s is gone: %v", h.name, err)
			}
			if err := b.Resize(64, true); err != nil {
				t.Fatal(err)
			}
		})
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, b.Resize(1, true), ErrReleased)
}

// TestPoolStatsMixed checks every statistic after a sequence of allocations,
// frees, resizes and slices, against Arrow's accounting: a pool counts
// capacities; growing by reallocation counts the difference as allocated
// (one more allocation), shrinking frees the difference; slices allocate
// nothing.
func TestPoolStatsMixed(t *testing.T) {
	for _, backend := range []string{"host", "mmap"} {
		t.Run(backend, func(t *testing.T) {
			a, _ := NewAllocator(backend)
			p := NewCheckedPool(a)
			defer p.AssertEmpty(t)
			x, err := NewBuffer(p, 100) // capacity 128
			if err != nil {
				t.Fatal(err)
			}
			wantStats(t, "x", p, stats{128, 128, 128, 1, 1})
			r, err := NewResizableBuffer(p, 10) // 64
			if err != nil {
				t.Fatal(err)
			}
			wantStats(t, "r", p, stats{192, 192, 192, 2, 2})
			if err := r.Resize(300, true); err != nil { // 64 -> 320: +256
				t.Fatal(err)
			}
			wantStats(t, "grow", p, stats{448, 448, 448, 3, 2})
			s, err := x.Slice(10, 20)
			if err != nil {
				t.Fatal(err)
			}
			wantStats(t, "slice", p, stats{448, 448, 448, 3, 2})
			if err := x.Release(); err != nil { // kept by the slice
				t.Fatal(err)
			}
			wantStats(t, "x released, slice alive", p, stats{448, 448, 448, 3, 2})
			if err := s.Release(); err != nil {
				t.Fatal(err)
			}
			wantStats(t, "slice released", p, stats{320, 448, 448, 3, 1})
			if err := r.Resize(64, true); err != nil { // 320 -> 64: -256
				t.Fatal(err)
			}
			wantStats(t, "shrink", p, stats{64, 448, 448, 3, 1})
			if err := r.Resize(10, false); err != nil { // no reallocation
				t.Fatal(err)
			}
			if err := r.Reserve(200); err != nil { // 64 -> 256: +192
				t.Fatal(err)
			}
			wantStats(t, "reserve", p, stats{256, 448, 640, 4, 1})
			y, err := NewBuffer(p, 1<<20) // mmap path of host
			if err != nil {
				t.Fatal(err)
			}
			wantStats(t, "big", p, stats{256 + 1<<20, 256 + 1<<20, 640 + 1<<20, 5, 2})
			for _, b := range []*Buffer{y, r} {
				if err := b.Release(); err != nil {
					t.Fatal(err)
				}
			}
			wantStats(t, "all released", p, stats{0, 256 + 1<<20, 640 + 1<<20, 5, 0})
		})
	}
}

// TestReallocateKeepsContents grows and shrinks allocations across the slab
// and mapping sizes of each backend, checking contents and zeroed tails.
func TestReallocateKeepsContents(t *testing.T) {
	for _, backend := range []string{"host", "mmap"} {
		t.Run(backend, func(t *testing.T) {
			a, _ := NewAllocator(backend)
			p := NewCheckedPool(a)
			defer p.AssertEmpty(t)
			b, err := p.Allocate(100)
			if err != nil {
				t.Fatal(err)
			}
			for i := range b {
				b[i] = byte(i + 1)
			}
			want := append([]byte{}, b...)
			for _, size := range []int{4 << 20, 8<<20 + 100, 3 << 20, 1 << 20, 5000, 0, 70, 2 << 20} {
				nb, err := p.Reallocate(b, size)
				if err != nil {
					t.Fatalf("to %d: %v", size, err)
				}
				keep := min(len(want), size)
				if !bytes.Equal(nb[:keep], want[:keep]) || !allZero(nb[keep:]) {
					t.Fatalf("to %d: contents lost or tail not zero", size)
				}
				want = want[:keep]
				// mark the end, which the next shrink must clear
				if size > 0 {
					nb[size-1] = 0xff
					want = append(want[:min(keep, size-1)], make([]byte, max(0, size-1-keep))...)
					want = append(want, 0xff)
				}
				b = nb
			}
			if err := p.Free(b); err != nil {
				t.Fatal(err)
			}
		})
	}
}
