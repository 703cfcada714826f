package memview

import (
	"testing"
)

func TestBufferSlice(t *testing.T) {
	p := NewCheckedPool(&HostAllocator{})
	defer p.AssertEmpty(t)
	parent, err := NewBufferFrom(p, []byte("0123456789"), true)
	if err != nil {
		t.Fatal(err)
	}
	s, err := parent.Slice(2, 5)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parent.MutableSlice(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	if string(s.Bytes()) != "23456" || s.Mutable() || s.Parent() != parent || s.Capacity() != 5 {
		t.Fatalf("slice %q mutable %t parent %p capacity %d", s.Bytes(), s.Mutable(), s.Parent(), s.Capacity())
	}
	if !m.Mutable() || m.Parent() != parent {
		t.Fatal("mutable slice is not mutable or lost its parent")
	}
	m.Bytes()[0] = 'x' // writes through to the parent and the other slice
	if string(parent.Bytes()) != "0123x56789" || string(s.Bytes()) != "23x56" {
		t.Fatalf("parent %q slice %q", parent.Bytes(), s.Bytes())
	}
	ss, err := s.Slice(1, 2) // a slice of a slice
	if err != nil {
		t.Fatal(err)
	}
	if string(ss.Bytes()) != "3x" || ss.Parent() != s {
		t.Fatalf("slice of slice %q", ss.Bytes())
	}
	if _, err := s.MutableSlice(0, 1); err == nil {
		t.Fatal("mutable slice of an immutable slice succeeded")
	} else {
		wantErr(t, err, ErrReadOnly)
	}
	for _, tc := range []struct {
		name           string
		offset, length int
	}{
		{"negative offset", -1, 2},
		{"negative length", 0, -1},
		{"past the end", 8, 3},
		{"offset past the end", 11, 0},
		{"overflow", 1, int(^uint(0) >> 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parent.Slice(tc.offset, tc.length)
			wantErr(t, err, ErrIndex)
		})
	}
	if e, err := parent.Slice(10, 0); err != nil || e.Len() != 0 {
		t.Fatalf("empty slice at the end: %v", err)
	} else if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	// The slices keep the parent's memory: drop the parent's own reference first.
	if err := parent.Release(); err != nil {
		t.Fatal(err)
	}
	if parent.Released() || p.NumLive() != 1 || string(ss.Bytes()) != "3x" {
		t.Fatalf("parent released %t with slices alive; live %d", parent.Released(), p.NumLive())
	}
	for _, b := range []*Buffer{m, s} {
		if err := b.Release(); err != nil {
			t.Fatal(err)
		}
	}
	if parent.Released() || p.NumLive() != 1 {
		t.Fatal("parent released while a slice of a slice lives")
	}
	if err := ss.Release(); err != nil {
		t.Fatal(err)
	}
	if !parent.Released() || p.NumLive() != 0 {
		t.Fatal("parent not released with its last slice")
	}
	if _, err := parent.Slice(0, 0); err == nil {
		t.Fatal("slice of a released buffer succeeded")
	}
}

func TestDeviceViewableOn(t *testing.T) {
	cpu, pinned := Device{}, Device{Kind: CUDAHost}
	dev0, dev1 := Device{Kind: CUDA}, Device{Kind: CUDA, ID: 1}
	man0 := Device{Kind: CUDAManaged}
	for _, tc := range []struct {
		name     string
		from, to Device
		want     bool
	}{
		{"cpu on cpu", cpu, cpu, true},
		{"cpu on cuda", cpu, dev0, false},
		{"cpu as pinned", cpu, pinned, false},
		{"pinned on cpu", pinned, cpu, true},
		{"pinned on cuda 0", pinned, dev0, true},
		{"pinned on cuda 1", pinned, dev1, true},
		{"managed on cpu", man0, cpu, true},
		{"managed on cuda 1", man0, dev1, true},
		{"device on cpu", dev0, cpu, false},
		{"device on itself", dev1, dev1, true},
		{"device on another", dev0, dev1, false},
		{"device as managed", dev0, man0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.from.ViewableOn(tc.to); got != tc.want {
				t.Fatalf("%v.ViewableOn(%v) = %t", tc.from, tc.to, got)
			}
		})
	}
}

// deviceAlloc is host memory that says it is on another device, to test views
// without a GPU. Like cuda.Allocator, it cannot reallocate.
type deviceAlloc struct {
	host HostAllocator
	dev  Device
}

func (d *deviceAlloc) Device() Device                    { return d.dev }
func (d *deviceAlloc) Name() string                      { return "fake " + d.dev.String() }
func (d *deviceAlloc) Allocate(size int) ([]byte, error) { return d.host.Allocate(size) }
func (d *deviceAlloc) Free(b []byte) error               { return d.host.Free(b) }

func TestBufferViewOn(t *testing.T) {
	inner := NewCheckedPool(&HostAllocator{})
	defer inner.AssertEmpty(t)
	pinned := NewPool(&deviceAlloc{dev: Device{Kind: CUDAHost}})
	b, err := NewBuffer(pinned, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer pinned.AssertEmpty(t)
	same, err := b.ViewOn(Device{Kind: CUDAHost})
	if err != nil || same != b || b.Refs() != 2 {
		t.Fatalf("view on its own device: %v, same %t, refs %d", err, same == b, b.Refs())
	}
	_ = same.Release()
	for _, dev := range []Device{{}, {Kind: CUDA, ID: 3}} {
		v, err := b.ViewOn(dev)
		if err != nil {
			t.Fatal(err)
		}
		if v == b || v.Device() != dev || v.Pointer() != b.Pointer() || v.Len() != 100 || v.Parent() != b || !v.Mutable() {
			t.Fatalf("view on %v: device %v same pointer %t len %d", dev, v.Device(), v.Pointer() == b.Pointer(), v.Len())
		}
		if (v.Bytes() != nil) != dev.HostAccessible() {
			t.Fatalf("view on %v: Bytes nil = %t", dev, v.Bytes() == nil)
		}
		if err := v.Release(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.ViewOn(Device{Kind: CUDAManaged}); err == nil {
		t.Fatal("pinned memory viewed as managed memory")
	} else {
		wantErr(t, err, ErrInvalid)
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	host, err := NewBuffer(inner, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Release()
	if _, err := host.ViewOn(Device{Kind: CUDA}); err == nil {
		t.Fatal("pageable host memory viewed from a CUDA device")
	}
}
