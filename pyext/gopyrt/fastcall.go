package gopyrt

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/memview/memview/memview"
)

// The Go shims memview generates for the call entries of a bound package
// (gopyfast.py) run with the GIL released and never touch Python: they hand
// the C entry an exception class and a message, which it raises once it has
// the GIL back.

// Failure is what a shim reports to its C entry: the Python exception class
// (a borrowed PyObject*) and the message to raise it with.
type Failure struct {
	Exception unsafe.Pointer
	Message   string
	Fields    string // the attributes of an error type's exception (Fields), or ""
}

// ErrorFailure is the failure a Go error returned by a bound function raises:
// the exception, message and attributes gopy's patched path raises it with.
func ErrorFailure(err error) Failure {
	return Failure{ExceptionFor(err), Message(err), Fields(err)}
}

// PanicFailure is the failure a panic with value r raises, as Recover raises
// it on gopy's path: "Go panic: " and the value.
func PanicFailure(r any) Failure {
	if err, ok := r.(badHandle); ok {
		return Failure{ExceptionFor(err), Message(err), ""}
	}
	if err, ok := r.(error); ok {
		return Failure{ExceptionFor(err), "Go panic: " + Message(err), ""}
	}
	return Failure{ExceptionFor(fmt.Errorf("%v", r)), fmt.Sprintf("Go panic: %v", r), ""}
}

// ImportBuffer makes the *memview.Array a shim passes for a *memview.Array
// parameter, over the memory of the Py_buffer the C entry took (lent, its
// mv_fast_lent): the array memview.from_buffer would make, built in one
// allocation with its buffer, which gives the Py_buffer back when it and
// every view Go made of it are released — through the Lend it returns (in
// lent's C memory), which leaves that to the C entry (holding the GIL
// already) when it happens during the call. pyext sets it.
var ImportBuffer func(lent unsafe.Pointer) (*memview.Array, *Lend, error)

// Lend says when the memory a C entry lent for one *memview.Array parameter
// was given back: during the call (the entry releases the Py_buffer itself,
// without another GIL round trip) or after it (Go kept a view; its release
// gives the Py_buffer back then). It lives in C memory, beside the Py_buffer.
type Lend struct{ state atomic.Int32 } // 0 in the call, 1 given back in it, 2 the call is over

// GiveBackInCall is called as the memory is given back: it reports whether
// the call is still on, the C entry then releasing the Py_buffer.
func (l *Lend) GiveBackInCall() bool { return l.state.CompareAndSwap(0, 1) }

// End marks the call over and reports whether the memory was given back
// during it.
func (l *Lend) End() bool { return !l.state.CompareAndSwap(0, 2) }

// SliceResult makes the memview array a generated call entry returns for a
// Go slice result of n elements of dt at p (read-only where it lies in a
// read-only argument), writing its C metadata (an mv_meta) to m; pyext sets
// it (fastSliceResult).
var SliceResult func(p unsafe.Pointer, n int, dt memview.DType, readonly bool, m unsafe.Pointer) error

// SliceRelease gives back an array SliceResult made that no Python object
// took over; pyext sets it.
var SliceRelease func(m unsafe.Pointer)
