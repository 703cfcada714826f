package memview

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestSizeText checks sizes as NumPy 2.4 writes them (numpy._core._exceptions).
func TestSizeText(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		want string
	}{
		{0, "0 bytes"}, {1, "1 bytes"}, {1023, "1023 bytes"}, {1024, "1.00 KiB"},
		{1536, "1.50 KiB"}, {10 << 10, "10.0 KiB"}, {768 << 10, "768. KiB"}, {131072, "128. KiB"},
		{102350, "100. KiB"}, {1023576, "1000. KiB"}, {1048252, "1.00 MiB"},
		{1<<20 - 1, "1.00 MiB"}, {1 << 30, "1.00 GiB"}, {12_884_901_888, "12.0 GiB"},
		{1 << 50, "1.00 PiB"}, {1 << 60, "1.00 EiB"}, {1<<64 - 1, "16.0 EiB"},
	} {
		if got := sizeText(c.n); got != c.want {
			t.Errorf("sizeText(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestEmptyOutOfMemorySaysWhatInNumPyWords(t *testing.T) {
	p := NewPool(&noMemory{})
	for _, c := range []struct {
		shape []int
		dt    string
		want  string
	}{
		{[]int{16384, 16384}, "float32", "memview: unable to allocate 1.00 GiB for an array with shape (16384, 16384) and data type float32: "},
		{[]int{3}, "int8", "memview: unable to allocate 3 bytes for an array with shape (3,) and data type int8: "},
	} {
		dt, err := ParseDType(c.dt)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Empty(p, c.shape, dt, 'C')
		if !errors.Is(err, ErrNoMemory) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Empty(%v, %s) = %v; want ErrNoMemory and a message starting %q", c.shape, c.dt, err, c.want)
		}
		src, err := Empty(nil, c.shape[:1], dt, 'C')
		if err != nil {
			t.Fatal(err)
		}
		_, err = src.Copy(p, 'C')
		want := "memview: unable to allocate " + sizeText(uint64(src.NBytes())) + " for an array with shape " + tuple(c.shape[:1])
		if !errors.Is(err, ErrNoMemory) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Copy = %v; want ErrNoMemory and a message starting %q", err, want)
		}
		_ = src.Release()
	}
	if p.NumLive() != 0 || p.BytesAllocated() != 0 || p.NumAllocations() != 0 {
		t.Fatalf("pool not empty after failures: %d live, %d bytes, %d allocations",
			p.NumLive(), p.BytesAllocated(), p.NumAllocations())
	}
}

// noMemory is an allocator that has none.
type noMemory struct{ HostAllocator }

func (*noMemory) Name() string { return "none" }

func (*noMemory) Allocate(size int) ([]byte, error) {
	return nil, fmt.Errorf("none left for %d bytes: %w", size, ErrNoMemory)
}
