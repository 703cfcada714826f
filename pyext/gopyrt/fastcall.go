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
}

// ErrorFailure is the failure a Go error returned by a bound function raises:
// the exception and message gopy's patched path raises for it.
func ErrorFailure(err error) Failure {
	return Failure{ExceptionFor(err), Message(err)}
}

// PanicFailure is the failure a panic with value r raises, as Recover raises
// it on gopy's path: "Go panic: " and the value.
func PanicFailure(r any) Failure {
	if err, ok := r.(badHandle); ok {
		return Failure{ExceptionFor(err), Message(err)}
	}
	if err, ok := r.(error); ok {
		return Failure{ExceptionFor(err), "Go panic: " + Message(err)}
	}
	return Failure{ExceptionFor(fmt.Errorf("%v", r)), fmt.Sprintf("Go panic: %v", r)}
}

// ImportBuffer makes the *memview.Array a shim passes for a *memview.Array
// parameter, over the memory of a Py_buffer (token) the C entry took: the
// same array memview.from_buffer makes, which gives the Py_buffer back when
// it and every view Go made of it are released — through lend, which leaves
// that to the C entry (holding the GIL already) when it happens during the
// call. pyext sets it.
var ImportBuffer func(buf unsafe.Pointer, shape []int, strides unsafe.Pointer, itemsize int, format string,
	readonly bool, token unsafe.Pointer, lend *Lend) (*memview.Array, error)

// Lend says when the memory a C entry lent for one *memview.Array parameter
// was given back: during the call (the entry releases the Py_buffer itself,
// without another GIL round trip) or after it (Go kept a view; its release
// gives the Py_buffer back then).
type Lend struct{ state atomic.Int32 } // 0 in the call, 1 given back in it, 2 the call is over

// GiveBackInCall is called as the memory is given back: it reports whether
// the call is still on, the C entry then releasing the Py_buffer.
func (l *Lend) GiveBackInCall() bool { return l.state.CompareAndSwap(0, 1) }

// End marks the call over and reports whether the memory was given back
// during it.
func (l *Lend) End() bool { return !l.state.CompareAndSwap(0, 2) }
