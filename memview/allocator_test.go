package memview

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testSizes = []struct {
	name string
	size int
}{
	{"zero", 0},
	{"one", 1},
	{"lt alignment", 63},
	{"eq alignment", 64},
	{"gt alignment", 65},
	{"page", 4096},
	{"1 MiB", 1 << 20},
	{"3 MiB", 3 << 20},
}

func backends() []Allocator {
	return []Allocator{&GoAllocator{}, &MmapAllocator{}, &HostAllocator{}, NewCheckedAllocator(&HostAllocator{})}
}

func TestAllocatorAlignmentAndZeroFill(t *testing.T) {
	for _, a := range backends() {
		for _, tc := range testSizes {
			t.Run(a.Name()+"/"+tc.name, func(t *testing.T) {
				b, err := a.Allocate(tc.size)
				if err != nil {
					t.Fatal(err)
				}
				if b == nil || len(b) != tc.size || cap(b) != tc.size {
					t.Fatalf("got nil=%t len %d cap %d, want len == cap == %d", b == nil, len(b), cap(b), tc.size)
				}
				if addr := uintptr(unsafe.Pointer(unsafe.SliceData(b))); addr%64 != 0 || addr == 0 {
					t.Fatalf("address %#x is not 64-byte aligned", addr)
				}
				for i, c := range b {
					if c != 0 {
						t.Fatalf("byte %d is %d, want 0", i, c)
					}
				}
				for i := range b {
					b[i] = 0xff
				}
				if err := a.Free(b); err != nil {
					t.Fatal(err)
				}
				if err := a.Free(b); !errors.Is(err, ErrInvalid) {
					t.Fatalf("double free: %v, want ErrInvalid", err)
				}
			})
		}
	}
}

func TestAllocatorErrors(t *testing.T) {
	for _, a := range backends() {
		t.Run(a.Name(), func(t *testing.T) {
			if _, err := a.Allocate(-1); !errors.Is(err, ErrInvalid) {
				t.Errorf("Allocate(-1): %v, want ErrInvalid", err)
			}
			if _, err := a.Allocate(math.MaxInt); !errors.Is(err, ErrNoMemory) {
				t.Errorf("Allocate(MaxInt): %v, want ErrNoMemory", err)
			}
			if err := a.Free(make([]byte, 8)); !errors.Is(err, ErrInvalid) {
				t.Errorf("Free(unknown): %v, want ErrInvalid", err)
			}
			if err := a.Free(nil); !errors.Is(err, ErrInvalid) {
				t.Errorf("Free(nil): %v, want ErrInvalid", err)
			}
		})
	}
}

func TestGoAllocatorHugeSize(t *testing.T) {
	var a GoAllocator
	if _, err := a.Allocate(1 << 62); !errors.Is(err, ErrNoMemory) {
		t.Fatalf("Allocate(1<<62): %v, want ErrNoMemory", err)
	}
}

func TestHostAllocatorRouting(t *testing.T) {
	var a HostAllocator
	for _, tc := range []struct {
		name string
		size int
		mmap bool
	}{
		{"small", 1<<20 - 1, false},
		{"threshold", 1 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := a.Allocate(tc.size)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.large.owns(b); got != tc.mmap {
				t.Errorf("from mmap = %t, want %t", got, tc.mmap)
			}
			if err := a.Free(b); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestPoolStatistics(t *testing.T) {
	p := newTestPool(t)
	b1, err := p.Allocate(100)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := p.Allocate(200)
	if err != nil {
		t.Fatal(err)
	}
	check := func(step string, bytes, peak, total, count, live int64) {
		t.Helper()
		got := []int64{p.BytesAllocated(), p.MaxMemory(), p.TotalBytesAllocated(), p.NumAllocations(), p.NumLive()}
		want := []int64{bytes, peak, total, count, live}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: stats (bytes, max, total, count, live) = %v, want %v", step, got, want)
				return
			}
		}
	}
	check("after two", 300, 300, 300, 2, 2)
	if err := p.Free(b1); err != nil {
		t.Fatal(err)
	}
	check("after free", 200, 300, 300, 2, 1)
	if _, err := p.Allocate(-1); err == nil {
		t.Fatal("Allocate(-1) succeeded")
	}
	check("after failure", 200, 300, 300, 2, 1)
	if err := p.Free(b2); err != nil {
		t.Fatal(err)
	}
	if err := p.Free(b2); !errors.Is(err, ErrInvalid) {
		t.Fatalf("double free: %v", err)
	}
	check("after all", 0, 300, 300, 2, 0)
	if p.BackendName() != "host" {
		t.Errorf("BackendName %q", p.BackendName())
	}
}

func TestPoolConcurrent(t *testing.T) {
	p := newTestPool(t)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				b, err := p.Allocate(64 + i)
				if err != nil {
					t.Error(err)
					return
				}
				b[0] = 1
				if err := p.Free(b); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := p.NumAllocations(); got != 1600 {
		t.Errorf("NumAllocations %d, want 1600", got)
	}
}

func TestNewAllocator(t *testing.T) {
	for _, tc := range []struct {
		name string
		want error
	}{
		{"host", nil}, {"mmap", nil}, {"go", ErrInvalid}, {"cuda", ErrInvalid}, {"", ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAllocator(tc.name)
			wantErr(t, err, tc.want)
			if err == nil && a.Name() != tc.name {
				t.Errorf("Name %q", a.Name())
			}
		})
	}
}

func TestDefaultPoolSelection(t *testing.T) {
	for _, tc := range []struct {
		name, env, backend string
		warn               bool
	}{
		{"unset", "", "host", false},
		{"host", "host", "host", false},
		{"go heap is not offered", "go", "host", true},
		{"mmap", "mmap", "mmap", false},
		{"unknown falls back", "jemalloc", "host", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, warning := newDefaultPool(tc.env)
			assert.Equal(t, tc.backend, p.BackendName(), "backend")
			if tc.warn {
				assert.Contains(t, warning, tc.env, "the warning names the setting")
			} else {
				assert.Empty(t, warning)
			}
		})
	}
	require.NotNil(t, DefaultPool())
	require.Same(t, DefaultPool(), DefaultPool(), "DefaultPool is one process-wide pool")
	_ = DefaultPoolWarning()
}

func TestCheckedAllocatorLeaks(t *testing.T) {
	c := NewCheckedAllocator(&GoAllocator{})
	b, err := c.Allocate(10)
	if err != nil {
		t.Fatal(err)
	}
	leaks := c.Leaks()
	if c.LiveBytes() != 10 || len(leaks) != 1 || !strings.Contains(leaks[0], "TestCheckedAllocatorLeaks") {
		t.Fatalf("LiveBytes %d, leaks %q", c.LiveBytes(), leaks)
	}
	if err := c.Free(b); err != nil {
		t.Fatal(err)
	}
	if c.LiveBytes() != 0 || len(c.Leaks()) != 0 {
		t.Fatalf("after Free: LiveBytes %d, leaks %q", c.LiveBytes(), c.Leaks())
	}
}
