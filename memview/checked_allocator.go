package memview

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

var _ Reallocator = (*CheckedAllocator)(nil)

// CheckedAllocator wraps an Allocator and records the call stack of every
// live allocation, to find leaks: Leaks describes each allocation not yet
// freed with the place it was made (Arrow's CheckedAllocator). A Pool over
// one (NewCheckedPool) ends a test with `defer pool.AssertEmpty(t)`. It is
// safe for concurrent use.
type CheckedAllocator struct {
	inner Allocator
	live  atomic.Int64
	// Origin, if set (before first use), is called at each allocation and its
	// text kept with the record and printed with a leak: the Python binding
	// sets it to the Python traceback of the caller.
	Origin func() string

	mu     sync.Mutex
	allocs map[uintptr]checkedAlloc
}

// checkedAlloc is the record of one live allocation.
type checkedAlloc struct {
	size   int
	pcs    []uintptr
	origin string
}

// checkedStackDepth is how many callers a CheckedAllocator records.
const checkedStackDepth = 16

// NewCheckedAllocator returns a CheckedAllocator over a.
func NewCheckedAllocator(a Allocator) *CheckedAllocator {
	return &CheckedAllocator{inner: a, allocs: make(map[uintptr]checkedAlloc)}
}

// NewCheckedPool returns a pool over a CheckedAllocator over a (nil: the
// default pool), for leak hunting: a test ends with `defer p.AssertEmpty(t)`.
func NewCheckedPool(a Allocator) *Pool {
	if a == nil {
		a = DefaultPool()
	}
	return NewPool(NewCheckedAllocator(a))
}

// Name returns the wrapped allocator's name.
func (c *CheckedAllocator) Name() string { return c.inner.Name() }

// Device is where the wrapped allocator's memory lives.
func (c *CheckedAllocator) Device() Device { return deviceOf(c.inner) }

// Allocate allocates from the wrapped allocator and records the caller stack.
func (c *CheckedAllocator) Allocate(size int) ([]byte, error) {
	b, err := c.inner.Allocate(size)
	if err != nil {
		return nil, err
	}
	c.record(b, size)
	return b, nil
}

// Reallocate reallocates through the wrapped allocator; the record moves to
// the new memory with the caller stack of the reallocation.
func (c *CheckedAllocator) Reallocate(b []byte, size int) ([]byte, error) {
	if _, ok := c.lookup(b); !ok {
		return nil, fmt.Errorf("memview: checked allocator: reallocate of unknown slice at %#x: %w", sliceAddr(b), ErrInvalid)
	}
	nb, err := reallocate(c.inner, b, size)
	if err != nil {
		return nil, err
	}
	c.forget(b)
	c.record(nb, size)
	return nb, nil
}

// record notes a live allocation made by the caller's caller.
func (c *CheckedAllocator) record(b []byte, size int) {
	pcs := make([]uintptr, checkedStackDepth)
	pcs = pcs[:runtime.Callers(3, pcs)]
	rec := checkedAlloc{size: size, pcs: pcs}
	if c.Origin != nil {
		rec.origin = c.Origin()
	}
	c.mu.Lock()
	c.allocs[sliceAddr(b)] = rec
	c.mu.Unlock()
	c.live.Add(int64(size))
}

func (c *CheckedAllocator) lookup(b []byte) (checkedAlloc, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, ok := c.allocs[sliceAddr(b)]
	return rec, ok
}

// forget drops the record of b and reports whether there was one.
func (c *CheckedAllocator) forget(b []byte) bool {
	key := sliceAddr(b)
	c.mu.Lock()
	rec, ok := c.allocs[key]
	if ok {
		delete(c.allocs, key)
	}
	c.mu.Unlock()
	if ok {
		c.live.Add(-int64(rec.size))
	}
	return ok
}

// Free frees through the wrapped allocator and forgets the record.
func (c *CheckedAllocator) Free(b []byte) error {
	if !c.forget(b) {
		return fmt.Errorf("memview: checked allocator: free of unknown slice at %#x: %w", sliceAddr(b), ErrInvalid)
	}
	return c.inner.Free(b)
}

// LiveBytes is the number of bytes allocated and not yet freed.
func (c *CheckedAllocator) LiveBytes() int64 { return c.live.Load() }

// NumLive is the number of allocations not yet freed.
func (c *CheckedAllocator) NumLive() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.allocs)
}

// Leaks describes every live allocation: its size and address, the Go call
// stack that made it (innermost first, from the first caller outside the
// pools and allocators) and, where Origin is set, its text. The report is
// sorted; it is empty when nothing is live.
func (c *CheckedAllocator) Leaks() []string {
	c.mu.Lock()
	recs := make([]checkedAlloc, 0, len(c.allocs))
	addrs := make([]uintptr, 0, len(c.allocs))
	for addr, rec := range c.allocs {
		recs = append(recs, rec)
		addrs = append(addrs, addr)
	}
	c.mu.Unlock()
	lines := make([]string, len(recs))
	for i, rec := range recs {
		var where []string
		frames := runtime.CallersFrames(rec.pcs)
		for {
			f, more := frames.Next()
			if f.Function != "" && !runtimeFrame(f.Function) && (len(where) > 0 || !allocatorFrame(f.Function)) {
				where = append(where, fmt.Sprintf("%s (%s:%d)", f.Function, f.File, f.Line))
			}
			if !more {
				break
			}
		}
		lines[i] = fmt.Sprintf("memview: leak of %d bytes at %#x allocated by %s", rec.size, addrs[i], strings.Join(where, " <- "))
		if rec.origin != "" {
			lines[i] += "\n" + strings.TrimRight(rec.origin, "\n")
		}
	}
	sort.Strings(lines)
	return lines
}

// allocatorFrame reports whether a function is part of the pool and
// allocator machinery between a caller and a CheckedAllocator, which a leak
// report skips so that it starts at the allocating call.
func allocatorFrame(fn string) bool {
	const pkg = "github.com/memview/memview/memview."
	rest, ok := strings.CutPrefix(fn, pkg)
	if !ok {
		return false
	}
	for _, p := range []string{"(*Pool).", "(*CheckedAllocator).", "(*LoggingAllocator).", "reallocate", "newBuffer", "allocBuffer", "newEmpty"} {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	return false
}

// runtimeFrame reports whether a function is the Go runtime's (or cgo's
// glue), which a leak report leaves out.
func runtimeFrame(fn string) bool {
	return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "_cgoexp_")
}

// deviceOf is where an allocator's memory lives: its Device() if it is a
// DeviceAllocator, else the CPU.
func deviceOf(a Allocator) Device {
	if d, ok := a.(DeviceAllocator); ok {
		return d.Device()
	}
	return Device{}
}
