package memview

import (
	"fmt"
	"runtime"
	"unsafe"
)

// WrapGo wraps size bytes of Go memory at p — the backing array of a slice —
// so that C and Python may hold its address: the Go object p points into is
// pinned with a runtime.Pinner now and unpinned when the last reference to
// the Buffer goes. Until then it neither moves nor is collected, even if no
// Go variable refers to it any more. Writes through the Buffer are writes to
// that object. p may be nil when size is 0; memory that is not on the Go heap
// is wrapped as it is (pinning it does nothing). The Buffer starts with one
// reference.
func WrapGo(p unsafe.Pointer, size int, readonly bool) *Buffer {
	if size == 0 || p == nil {
		return WrapExternal(p, 0, readonly, nil)
	}
	pin := new(runtime.Pinner)
	pin.Pin(p)
	return WrapExternal(p, size, readonly, pin.Unpin)
}

// FromSlice returns a writable 1-D Array over the elements of s, without a
// copy (the Go side of handing a slice to NumPy). The slice's backing array
// is pinned until the last reference to the Array's buffer goes (WrapGo), so
// the Array and every view and export of it stay valid however long
// consumers keep them. The Array sees the backing array s has now: an append
// that reallocates s is not seen. Release the Array when done with it.
func FromSlice[T Element](s []T) (*Array, error) {
	dt := DTypeOf[T]()
	b := WrapGo(unsafe.Pointer(unsafe.SliceData(s)), len(s)*dt.Itemsize(), false)
	a, err := NewArray(b, dt, []int{len(s)}, nil, 0, false)
	if rerr := b.Release(); err == nil && rerr != nil {
		_ = a.Release()
		err = rerr
	}
	if err != nil {
		return nil, fmt.Errorf("memview: array over a []%s of %d elements: %w", dt, len(s), err)
	}
	return a, nil
}

// AsSlice returns the elements of a C-contiguous array of T as a Go slice
// over the same memory, without a copy (flattened in C order). The slice is
// valid until a is released, and must not be written when a is read-only.
// An array of another dtype wraps ErrType; one that is not C-contiguous, or
// not in host memory, wraps ErrInvalid.
func AsSlice[T Element](a *Array) ([]T, error) {
	if a == nil {
		return nil, fmt.Errorf("memview: slice of a nil array: %w", ErrInvalid)
	}
	if err := a.hostAlive(); err != nil {
		return nil, err
	}
	if want := DTypeOf[T](); a.dt != want {
		return nil, fmt.Errorf("memview: a []%s cannot view an array of %s: %w", want, a.dt, ErrType)
	}
	if !a.CContiguous() {
		return nil, fmt.Errorf("memview: a slice cannot view a non-contiguous array (shape %v, strides %v): %w",
			a.layout.Shape, a.layout.Strides, ErrInvalid)
	}
	n := a.Size()
	if n == 0 {
		return []T{}, nil
	}
	return unsafe.Slice((*T)(a.Pointer()), n), nil
}
