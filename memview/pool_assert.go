package memview

import "fmt"

// TestingT is the part of testing.TB that AssertEmpty uses (so that this
// package does not import testing).
type TestingT interface {
	Helper()
	Errorf(format string, args ...any)
}

// AssertEmpty fails t unless every allocation from p has been freed,
// reporting each one still live with its origin when p is a checked pool
// (NewCheckedPool). Tests begin with
//
//	p := memview.NewCheckedPool(nil)
//	defer p.AssertEmpty(t)
func (p *Pool) AssertEmpty(t TestingT) {
	t.Helper()
	if n, b := p.NumLive(), p.BytesAllocated(); n != 0 || b != 0 {
		t.Errorf("memview: pool %s has %d live allocations of %d bytes", p.Name(), n, b)
	}
	for _, l := range p.Leaks() {
		t.Errorf("%s", l)
	}
}

// Leaks describes the live allocations of a checked pool (a pool over a
// CheckedAllocator), one entry each with the place it was made; nil for
// other pools.
func (p *Pool) Leaks() []string {
	if c, ok := p.alloc.(*CheckedAllocator); ok {
		return c.Leaks()
	}
	return nil
}

// String describes the pool's statistics.
func (p *Pool) String() string {
	return fmt.Sprintf("memview.Pool(%s: %d bytes in %d allocations live, peak %d, %d bytes in %d allocations in all)",
		p.Name(), p.BytesAllocated(), p.NumLive(), p.MaxMemory(), p.TotalBytesAllocated(), p.NumAllocations())
}
