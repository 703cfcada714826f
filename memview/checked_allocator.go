package memview

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

var _ Allocator = (*CheckedAllocator)(nil)

// CheckedAllocator wraps an Allocator and records the caller stack of every
// live allocation, to find leaks: a test ends by checking LiveBytes() == 0 and
// prints Leaks() otherwise. It is safe for concurrent use.
type CheckedAllocator struct {
	inner  Allocator
	live   atomic.Int64
	mu     sync.Mutex
	allocs map[uintptr]checkedAlloc
}

// checkedAlloc is the record of one live allocation.
type checkedAlloc struct {
	size int
	pcs  []uintptr
}

// checkedStackDepth is how many callers a CheckedAllocator records.
const checkedStackDepth = 12

// NewCheckedAllocator returns a CheckedAllocator over a.
func NewCheckedAllocator(a Allocator) *CheckedAllocator {
	return &CheckedAllocator{inner: a, allocs: make(map[uintptr]checkedAlloc)}
}

// Name returns the wrapped allocator's name.
func (c *CheckedAllocator) Name() string { return c.inner.Name() }

// Allocate allocates from the wrapped allocator and records the caller stack.
func (c *CheckedAllocator) Allocate(size int) ([]byte, error) {
	b, err := c.inner.Allocate(size)
	if err != nil {
		return nil, err
	}
	pcs := make([]uintptr, checkedStackDepth)
	pcs = pcs[:runtime.Callers(2, pcs)]
	c.mu.Lock()
	c.allocs[sliceAddr(b)] = checkedAlloc{size: size, pcs: pcs}
	c.mu.Unlock()
	c.live.Add(int64(size))
	return b, nil
}

// Free frees through the wrapped allocator and forgets the record.
func (c *CheckedAllocator) Free(b []byte) error {
	key := sliceAddr(b)
	c.mu.Lock()
	rec, ok := c.allocs[key]
	if ok {
		delete(c.allocs, key)
	}
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("memview: checked allocator: free of unknown slice at %#x: %w", key, ErrInvalid)
	}
	c.live.Add(-int64(rec.size))
	return c.inner.Free(b)
}

// LiveBytes is the number of bytes allocated and not yet freed.
func (c *CheckedAllocator) LiveBytes() int64 { return c.live.Load() }

// Leaks describes every live allocation, one line each: its size and the
// stack of the call that made it, innermost first.
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
			if f.Function != "" {
				where = append(where, fmt.Sprintf("%s (%s:%d)", f.Function, f.File, f.Line))
			}
			if !more {
				break
			}
		}
		lines[i] = fmt.Sprintf("memview: leak of %d bytes at %#x allocated by %s", rec.size, addrs[i], strings.Join(where, " <- "))
	}
	sort.Strings(lines)
	return lines
}
