package pyext

import (
	"fmt"
	"runtime/cgo"
	"sync/atomic"

	"github.com/memview/memview/memview"
)

// C holds a runtime/cgo.Handle per array object, never a Go pointer. live counts
// the handles not yet deleted, so tests can prove every one came back.
var live atomic.Int64

func newHandle(a *memview.Array) cgo.Handle {
	live.Add(1)
	return cgo.NewHandle(a)
}

// lookup returns the array behind a handle C passed in, or an error (never a
// panic) for a zero or stale handle.
func lookup(h uintptr) (a *memview.Array, err error) {
	defer func() {
		if recover() != nil {
			a, err = nil, fmt.Errorf("memview: invalid array handle %d: %w", h, memview.ErrReleased)
		}
	}()
	if h == 0 {
		return nil, fmt.Errorf("memview: operation on a released array: %w", memview.ErrReleased)
	}
	v, ok := cgo.Handle(h).Value().(*memview.Array)
	if !ok {
		return nil, fmt.Errorf("memview: handle %d is not an array: %w", h, memview.ErrInvalid)
	}
	return v, nil
}

// dropHandle deletes a handle and releases the array's reference to its buffer.
func dropHandle(h uintptr) error {
	a, err := lookup(h)
	if err != nil {
		return err
	}
	cgo.Handle(h).Delete()
	live.Add(-1)
	return a.Release()
}
