package memview

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// Pool wraps an Allocator and keeps statistics (all atomic, safe for
// concurrent use). Sizes are the requested sizes, not counting alignment
// padding or page rounding.
type Pool struct {
	alloc Allocator
	bytes atomic.Int64 // live bytes
	peak  atomic.Int64 // peak of bytes
	total atomic.Int64 // bytes ever allocated
	count atomic.Int64 // successful Allocate calls
	live  atomic.Int64 // allocations not yet freed
}

// NewPool returns a Pool over a.
func NewPool(a Allocator) *Pool { return &Pool{alloc: a} }

// Allocate allocates size bytes from the pool's allocator and counts them.
func (p *Pool) Allocate(size int) ([]byte, error) {
	b, err := p.alloc.Allocate(size)
	if err != nil {
		return nil, err
	}
	n := int64(size)
	cur := p.bytes.Add(n)
	for {
		old := p.peak.Load()
		if cur <= old || p.peak.CompareAndSwap(old, cur) {
			break
		}
	}
	p.total.Add(n)
	p.count.Add(1)
	p.live.Add(1)
	return b, nil
}

// Free returns b (a slice returned by Allocate, whole) to the allocator.
func (p *Pool) Free(b []byte) error {
	if err := p.alloc.Free(b); err != nil {
		return err
	}
	p.bytes.Add(-int64(len(b)))
	p.live.Add(-1)
	return nil
}

// BytesAllocated is the number of live bytes (requested sizes).
func (p *Pool) BytesAllocated() int64 { return p.bytes.Load() }

// MaxMemory is the peak of BytesAllocated.
func (p *Pool) MaxMemory() int64 { return p.peak.Load() }

// TotalBytesAllocated is the sum of the sizes of all allocations ever made.
func (p *Pool) TotalBytesAllocated() int64 { return p.total.Load() }

// NumAllocations is the number of Allocate calls that succeeded.
func (p *Pool) NumAllocations() int64 { return p.count.Load() }

// NumLive is the number of allocations not yet freed.
func (p *Pool) NumLive() int64 { return p.live.Load() }

// Device is where the pool's memory lives: the allocator's Device() if it is a
// DeviceAllocator, else the CPU.
func (p *Pool) Device() Device {
	if d, ok := p.alloc.(DeviceAllocator); ok {
		return d.Device()
	}
	return Device{}
}

// BackendName is the allocator's Name().
func (p *Pool) BackendName() string { return p.alloc.Name() }

// DefaultPoolEnv is the environment variable that chooses the backend of
// DefaultPool: "host" (the default) or "mmap".
const DefaultPoolEnv = "MEMVIEW_DEFAULT_POOL"

var (
	defaultPoolOnce    sync.Once
	defaultPool        *Pool
	defaultPoolWarning string
)

// DefaultPool returns the process-wide pool, created on first use with the
// backend named by MEMVIEW_DEFAULT_POOL. An unknown name falls back to "host"
// and DefaultPoolWarning says so.
func DefaultPool() *Pool {
	defaultPoolOnce.Do(func() {
		defaultPool, defaultPoolWarning = newDefaultPool(os.Getenv(DefaultPoolEnv))
	})
	return defaultPool
}

// DefaultPoolWarning is the warning produced when DefaultPool was created, or
// "" when the backend name was known (or empty). It creates the default pool
// if needed.
func DefaultPoolWarning() string {
	DefaultPool()
	return defaultPoolWarning
}

// newDefaultPool makes a pool for the backend name; "" means "host". An
// unknown name gives a host pool and a warning.
func newDefaultPool(name string) (*Pool, string) {
	if name == "" {
		name = "host"
	}
	a, err := NewAllocator(name)
	if err != nil {
		return NewPool(&HostAllocator{}), fmt.Sprintf(
			"memview: %s=%q is not a known backend (host, mmap); using host", DefaultPoolEnv, name)
	}
	return NewPool(a), ""
}

// NewAllocator returns a new allocator for a backend name: "host" or "mmap".
// An unknown name wraps ErrInvalid.
//
// Both keep array memory off the Go heap, so that running out of memory is
// ErrNoMemory and never the Go runtime's fatal error. GoAllocator, whose
// memory is the Go heap, is not offered by name for that reason.
func NewAllocator(name string) (Allocator, error) {
	switch name {
	case "host":
		return &HostAllocator{}, nil
	case "mmap":
		return &MmapAllocator{}, nil
	}
	return nil, fmt.Errorf("memview: unknown allocator backend %q (want host or mmap): %w", name, ErrInvalid)
}
