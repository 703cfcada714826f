package pyext

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/memview/memview/memview"
)

// C holds a handle per array, buffer or builder object, never a Go pointer. A
// handle is a slot index in a table plus the slot's generation, so a stale or
// forged handle is reported as an error instead of reaching another object
// (the zero handle is never valid). It does the job of runtime/cgo.Handle at
// a fraction of the cost (no sync.Map), which matters because every array
// object made or dropped by Python takes one. There is one table per kind of
// object.
//
//	handle = generation<<32 | (index+1)
var (
	handles        handleTable[*memview.Array]
	bufferHandles  handleTable[*memview.Buffer]
	builderHandles handleTable[*builder]
)

type handleTable[T any] struct {
	mu    sync.Mutex
	slots []handleSlot[T]
	free  []uint32 // indexes of empty slots
	live  int
}

type handleSlot[T any] struct {
	gen  uint32
	used bool
	val  T
}

// put stores v and returns its handle.
func (t *handleTable[T]) put(v T) uintptr {
	t.mu.Lock()
	defer t.mu.Unlock()
	var i uint32
	if n := len(t.free); n > 0 {
		i = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		t.slots = append(t.slots, handleSlot[T]{})
		i = uint32(len(t.slots) - 1)
	}
	s := &t.slots[i]
	s.gen++
	s.val, s.used = v, true
	t.live++
	return uintptr(s.gen)<<32 | uintptr(i+1)
}

// slot returns the slot a handle names, or nil for a zero, stale or forged one.
// Call with t.mu held.
func (t *handleTable[T]) slot(h uintptr) *handleSlot[T] {
	i, gen := uint32(h&0xffffffff), uint32(h>>32)
	if i == 0 || int(i) > len(t.slots) {
		return nil
	}
	s := &t.slots[i-1]
	if !s.used || s.gen != gen {
		return nil
	}
	return s
}

// get returns the value behind h.
func (t *handleTable[T]) get(h uintptr) (T, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.slot(h); s != nil {
		return s.val, true
	}
	var zero T
	return zero, false
}

// take deletes h and returns its value.
func (t *handleTable[T]) take(h uintptr) (T, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var zero T
	s := t.slot(h)
	if s == nil {
		return zero, false
	}
	v := s.val
	s.val, s.used = zero, false
	t.free = append(t.free, uint32(h&0xffffffff)-1)
	t.live--
	return v, true
}

// count is the number of live handles.
func (t *handleTable[T]) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.live
}

func staleHandle(h uintptr) error {
	if h == 0 {
		return fmt.Errorf("memview: operation on a released array: %w", memview.ErrReleased)
	}
	return fmt.Errorf("memview: invalid array handle %#x: %w", h, memview.ErrReleased)
}

// newHandle stores a and returns its handle.
func newHandle(a *memview.Array) uintptr { return handles.put(a) }

// lookup returns the array behind a handle C passed in, or an error (never a
// panic) for a zero or stale handle.
func lookup(h uintptr) (*memview.Array, error) {
	a, ok := handles.get(h)
	if !ok {
		return nil, staleHandle(h)
	}
	return a, nil
}

// dropHandle deletes a handle and releases the array's reference to its buffer.
func dropHandle(h uintptr) error {
	a, ok := handles.take(h)
	if !ok {
		return staleHandle(h)
	}
	forgetAdopted(h)
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

// liveHandles counts the handles not yet deleted — of arrays, buffers and
// builders — so tests can prove every one came back. Arrays made in C from the
// creation cache are not counted, even once Go was handed one (blocks.go).
func liveHandles() int {
	return handles.count() - int(adoptedLive.Load()) + bufferHandles.count() + builderHandles.count()
}
