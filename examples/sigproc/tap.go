package sigproc

import (
	"fmt"
	"sync"

	"github.com/memview/memview/memview"
)

// The tap: Go code that keeps an output buffer after the call that handed it
// over, and writes into it later — the lifetime rule for memory Python lends
// Go. The *memview.Array a bound function receives is valid for the call;
// to keep the memory, Go makes its own view (a.Index()), which keeps the
// memory, and the Python object that owns it, alive until Go releases it.
var tap struct {
	sync.Mutex
	out  *memview.Array
	next int
}

// Tap keeps out (a 1-D float64 array, from NumPy or memview) as the buffer
// Emit writes to, replacing and releasing any earlier one.
func Tap(out *memview.Array) error {
	if out.NDim() != 1 || !out.DType().SameLayout(memview.Float64) {
		return fmt.Errorf("sigproc.Tap: a 1-D float64 array is needed, not %v: %w", out, memview.ErrType)
	}
	own, err := out.Index() // Go's own reference: the memory stays after the call
	if err != nil {
		return fmt.Errorf("sigproc.Tap: %w", err)
	}
	tap.Lock()
	defer tap.Unlock()
	old := tap.out
	tap.out, tap.next = own, 0
	if old != nil {
		return old.Release()
	}
	return nil
}

// Emit writes v into the next element of the tapped buffer.
func Emit(v float64) error {
	tap.Lock()
	defer tap.Unlock()
	if tap.out == nil {
		return fmt.Errorf("sigproc.Emit: no buffer tapped: %w", memview.ErrInvalid)
	}
	if tap.next >= tap.out.Size() {
		return fmt.Errorf("sigproc.Emit: the tapped buffer is full (%d samples): %w", tap.next, memview.ErrIndex)
	}
	if err := tap.out.SetFloat64(v, tap.next); err != nil {
		return err
	}
	tap.next++
	return nil
}

// Tapped returns the sum of the samples written to the tapped buffer so far.
func Tapped() (float64, error) {
	tap.Lock()
	defer tap.Unlock()
	if tap.out == nil {
		return 0, fmt.Errorf("sigproc.Tapped: no buffer tapped: %w", memview.ErrInvalid)
	}
	s := 0.0
	for i := range tap.next {
		v, err := tap.out.Float64(i)
		if err != nil {
			return 0, err
		}
		s += v
	}
	return s, nil
}

// Untap releases the tapped buffer: Go's hold on the memory ends.
func Untap() error {
	tap.Lock()
	defer tap.Unlock()
	if tap.out == nil {
		return nil
	}
	err := tap.out.Release()
	tap.out = nil
	return err
}
