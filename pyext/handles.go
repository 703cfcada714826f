package pyext

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/memview/memview/memview"
)

// C holds a handle per array object, never a Go pointer. A handle is a slot
// index in a table plus the slot's generation, so a stale or forged handle is
// reported as an error instead of reaching another array (the zero handle is
// never valid). It does the job of runtime/cgo.Handle at a fraction of the cost
// (no sync.Map), which matters because every array object made or dropped by
// Python takes one.
//
//	handle = generation<<32 | (index+1)
var handles handleTable

type handleTable struct {
	mu    sync.Mutex
	slots []handleSlot
	free  []uint32 // indexes of empty slots
	live  int
}

type handleSlot struct {
	gen uint32
	arr *memview.Array // nil when empty
}

// newHandle stores a and returns its handle.
func newHandle(a *memview.Array) uintptr {
	t := &handles
	t.mu.Lock()
	defer t.mu.Unlock()
	var i uint32
	if n := len(t.free); n > 0 {
		i = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		t.slots = append(t.slots, handleSlot{})
		i = uint32(len(t.slots) - 1)
	}
	s := &t.slots[i]
	s.gen++
	s.arr = a
	t.live++
	return uintptr(s.gen)<<32 | uintptr(i+1)
}

// slot returns the slot a handle names, or nil for a zero, stale or forged one.
// Call with t.mu held.
func (t *handleTable) slot(h uintptr) *handleSlot {
	i, gen := uint32(h&0xffffffff), uint32(h>>32)
	if i == 0 || int(i) > len(t.slots) {
		return nil
	}
	s := &t.slots[i-1]
	if s.arr == nil || s.gen != gen {
		return nil
	}
	return s
}

func staleHandle(h uintptr) error {
	if h == 0 {
		return fmt.Errorf("memview: operation on a released array: %w", memview.ErrReleased)
	}
	return fmt.Errorf("memview: invalid array handle %#x: %w", h, memview.ErrReleased)
}

// lookup returns the array behind a handle C passed in, or an error (never a
// panic) for a zero or stale handle.
func lookup(h uintptr) (*memview.Array, error) {
	t := &handles
	t.mu.Lock()
	s := t.slot(h)
	t.mu.Unlock()
	if s == nil {
		return nil, staleHandle(h)
	}
	return s.arr, nil
}

// dropHandle deletes a handle and releases the array's reference to its buffer.
func dropHandle(h uintptr) error {
	t := &handles
	t.mu.Lock()
	s := t.slot(h)
	if s == nil {
		t.mu.Unlock()
		return staleHandle(h)
	}
	a := s.arr
	s.arr = nil
	t.free = append(t.free, uint32(h&0xffffffff)-1)
	t.live--
	t.mu.Unlock()
	return a.Release()
}

// handleChecks counts calls of roomForHandle.
var handleChecks atomic.Uint32

// roomForHandle is called before each new array handle. Every 64th call it
// checks that the process's address-space limit, if it has one, leaves the Go
// heap room to grow (memview.CheckAddressSpace): array objects made in bulk
// (views, say, which allocate no array memory) then end in MemoryError, as
// their Python objects would, and never in the Go runtime's fatal error.
func roomForHandle() error {
	if handleChecks.Add(1)%64 != 0 {
		return nil
	}
	if err := memview.CheckAddressSpace(0); err != nil {
		return fmt.Errorf("memview: cannot make another array object: %w", err)
	}
	return nil
}

// liveHandles counts the handles not yet deleted, so tests can prove every one
// came back.
func liveHandles() int {
	handles.mu.Lock()
	defer handles.mu.Unlock()
	return handles.live
}
