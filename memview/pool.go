package memview

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

var _ DeviceAllocator = (*Pool)(nil)

// Pool wraps an Allocator and keeps statistics (all atomic, safe for
// concurrent use). Sizes are the sizes asked of the pool, not counting an
// allocator's own rounding (slab classes, pages). As in Apache Arrow, a Buffer
// asks its pool for its capacity (its size rounded up to 64 bytes), so the
// statistics of the pool count capacities.
//
// A Pool is itself an Allocator (a DeviceAllocator), so pools stack: a pool
// over another pool (NewProxyPool) counts what goes through it while the inner
// pool counts it too, and a pool over a CheckedAllocator or LoggingAllocator
// over a pool checks or logs one caller's allocations.
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

// NewProxyPool returns a pool that allocates through inner and counts what
// goes through it (Arrow's ProxyMemoryPool): inner counts it too.
func NewProxyPool(inner *Pool) *Pool { return NewPool(inner) }

// Allocate allocates size bytes from the pool's allocator and counts them.
func (p *Pool) Allocate(size int) ([]byte, error) { return p.counted(p.alloc.Allocate(size)) }

// AllocateUninit is Allocate for a caller that writes every byte before
// reading any: an UninitAllocator skips the zero fill of reused memory; any
// other allocator zero-fills as ever. It is counted as Allocate is.
func (p *Pool) AllocateUninit(size int) ([]byte, error) {
	if u, ok := p.alloc.(UninitAllocator); ok {
		return p.counted(u.AllocateUninit(size))
	}
	return p.Allocate(size)
}

// counted counts a new allocation b (live, bytes, peak, total), unless err.
func (p *Pool) counted(b []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	p.didAllocate(int64(len(b)))
	p.live.Add(1)
	return b, nil
}

// didAllocate counts n new bytes: live, peak, total and one allocation.
func (p *Pool) didAllocate(n int64) {
	cur := p.bytes.Add(n)
	for {
		old := p.peak.Load()
		if cur <= old || p.peak.CompareAndSwap(old, cur) {
			break
		}
	}
	p.total.Add(n)
	p.count.Add(1)
}

// Reallocate returns an allocation of size bytes holding b's first
// min(len(b), size) bytes, the rest zero; b (a slice returned by Allocate or
// Reallocate, whole) is freed unless an error is returned. The allocator's
// own Reallocate is used where it has one; otherwise a new allocation, a copy
// and a free, which needs memory the CPU can address (else ErrInvalid).
//
// As in Arrow, growing counts as an allocation of the difference (live, total
// and NumAllocations grow) and shrinking as a free of it; NumLive is
// unchanged.
func (p *Pool) Reallocate(b []byte, size int) ([]byte, error) {
	nb, err := reallocate(p.alloc, b, size)
	if err != nil {
		return nil, err
	}
	if d := int64(size) - int64(len(b)); d >= 0 {
		p.didAllocate(d)
	} else {
		p.bytes.Add(d)
	}
	return nb, nil
}

// Reallocator is an Allocator that can resize an allocation itself, possibly
// in place. Reallocate has the contract of Pool.Reallocate.
type Reallocator interface {
	Allocator
	Reallocate(b []byte, size int) ([]byte, error)
}

// reallocate resizes b through a: with its own Reallocate if it has one, else
// by allocating, copying and freeing.
func reallocate(a Allocator, b []byte, size int) ([]byte, error) {
	if r, ok := a.(Reallocator); ok {
		return r.Reallocate(b, size)
	}
	return reallocateByCopy(a, b, size)
}

// reallocateByCopy resizes b through a by allocating, copying and freeing.
func reallocateByCopy(a Allocator, b []byte, size int) ([]byte, error) {
	if size < 0 {
		return nil, fmt.Errorf("memview: reallocate to negative size %d: %w", size, ErrInvalid)
	}
	if d, ok := a.(DeviceAllocator); ok && !d.Device().HostAccessible() {
		return nil, fmt.Errorf("memview: cannot reallocate %s memory (the CPU cannot copy it): %w", d.Device(), ErrInvalid)
	}
	nb, err := a.Allocate(size)
	if err != nil {
		return nil, err
	}
	copy(nb, b) // nb is zero-filled beyond len(b)
	if err := a.Free(b); err != nil {
		_ = a.Free(nb)
		return nil, err
	}
	return nb, nil
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

// Recount adds allocations and bytes (either may be negative) to
// NumAllocations and TotalBytesAllocated, and nothing else. It is for a cache
// in front of the pool that hands one allocation out several times, or gives
// back allocations it never handed out: after Recount the two counters say
// what the cache's users were handed, as if each had come from the pool.
// BytesAllocated, NumLive and MaxMemory are not touched (a cached block is
// live memory of the pool).
func (p *Pool) Recount(allocations, bytes int64) {
	p.count.Add(allocations)
	p.total.Add(bytes)
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
func (p *Pool) Device() Device { return deviceOf(p.alloc) }

// BackendName is the allocator's Name().
func (p *Pool) BackendName() string { return p.alloc.Name() }

// Name is BackendName: a pool over another pool reports the backend beneath.
func (p *Pool) Name() string { return p.alloc.Name() }

// Allocator returns the allocator the pool draws from.
func (p *Pool) Allocator() Allocator { return p.alloc }

// DefaultPoolEnv is the environment variable that chooses the backend of
// DefaultPool: "host" (the default) or "mmap".
const DefaultPoolEnv = "MEMVIEW_DEFAULT_POOL"

var (
	defaultPoolOnce    sync.Once
	defaultPool        *Pool
	defaultPoolWarning string
	currentPool        atomic.Pointer[Pool] // set by SetDefaultPool
)

// DefaultPool returns the pool that allocations without a pool of their own
// (a nil *Pool) come from: the one SetDefaultPool chose, else the process-wide
// pool, created on first use with the backend named by MEMVIEW_DEFAULT_POOL. An
// unknown name falls back to "host" and DefaultPoolWarning says so.
func DefaultPool() *Pool {
	if p := currentPool.Load(); p != nil {
		return p
	}
	return initialPool()
}

// initialPool is the process-wide pool MEMVIEW_DEFAULT_POOL chose.
func initialPool() *Pool {
	defaultPoolOnce.Do(func() {
		defaultPool, defaultPoolWarning = newDefaultPool(os.Getenv(DefaultPoolEnv))
	})
	return defaultPool
}

// SetDefaultPool makes p the pool DefaultPool returns (nil: the process-wide
// pool again) and returns the previous one. Memory goes back to the pool it
// came from whatever the default is by then. It is meant for leak hunting
// (a checked pool around a test) and for programs that choose their pool once.
func SetDefaultPool(p *Pool) *Pool {
	old := currentPool.Swap(p)
	if old == nil {
		old = initialPool()
	}
	return old
}

// DefaultPoolWarning is the warning produced when DefaultPool was created, or
// "" when the backend name was known (or empty). It creates the default pool
// if needed.
func DefaultPoolWarning() string {
	initialPool()
	return defaultPoolWarning
}

// newDefaultPool makes a pool for the backend name; "" means "host". An
// unknown name gives a host pool and a warning.
func newDefaultPool(name string) (*Pool, string) {
	if name == "" {
		name = "host"
	}
	a, err := BackendAllocator(name)
	if err != nil {
		a, _ = BackendAllocator("host")
		return NewPool(a), fmt.Sprintf(
			"memview: %s=%q is not a known backend (host, mmap); using host", DefaultPoolEnv, name)
	}
	return NewPool(a), ""
}

var (
	sharedHost HostAllocator
	sharedMmap MmapAllocator
)

// BackendAllocator returns the process-wide allocator of a backend, "host" or
// "mmap", which every pool of that backend made by name shares (the default
// pool among them), so that their slabs and cached blocks are shared. An
// unknown name wraps ErrInvalid.
func BackendAllocator(name string) (Allocator, error) {
	switch name {
	case "host":
		return &sharedHost, nil
	case "mmap":
		return &sharedMmap, nil
	}
	_, err := NewAllocator(name)
	return nil, err
}

// NewBackendPool returns a new pool, with statistics of its own, over the
// process-wide allocator of a backend ("host" or "mmap"; see
// BackendAllocator).
func NewBackendPool(name string) (*Pool, error) {
	a, err := BackendAllocator(name)
	if err != nil {
		return nil, err
	}
	return NewPool(a), nil
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
