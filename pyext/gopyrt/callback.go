package gopyrt

/*
#define PY_SSIZE_T_CLEAN
#include <Python.h>
*/
import "C"

import (
	"sync"
	"unsafe"
)

// CallbackErr carries the exception a Python callable raised when a bound Go
// function called it back (a Go func parameter), to the end of that function,
// which raises it. gopy's code printed the exception, went on with the NULL
// result the call returned, and read it without the GIL (a crash); build.py
// patches every callback gopy generates to convert its result with the GIL
// held, release it, and Save what went wrong.
type CallbackErr struct {
	mu           sync.Mutex
	typ, val, tb *C.PyObject
	done         bool
}

// NewCallbackErr returns the carrier for one call of a bound function.
func NewCallbackErr() *CallbackErr { return &CallbackErr{} }

// Save takes the pending Python exception, if any, at the end of a callback
// (the GIL held). The first one is kept for the bound function to raise; later
// ones are dropped. One raised after the bound function returned (by a
// goroutine that calls back late) is reported as unraisable.
func (e *CallbackErr) Save() {
	if C.PyErr_Occurred() == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.done:
		C.PyErr_WriteUnraisable(nil)
	case e.typ != nil:
		C.PyErr_Clear()
	default:
		C.PyErr_Fetch(&e.typ, &e.val, &e.tb)
	}
}

// Restore raises the saved exception, if any, as the bound function returns
// (the GIL held), in place of any other it set; reports whether it did.
func (e *CallbackErr) Restore() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.done = true
	if e.typ == nil {
		return false
	}
	C.PyErr_Clear()
	C.PyErr_Restore(e.typ, e.val, e.tb)
	e.typ, e.val, e.tb = nil, nil, nil
	return true
}

// DecRefGIL drops a reference to the Python object at p, taking the GIL: for
// the callable a goroutine started with goRun=True keeps until it ends.
func DecRefGIL(p unsafe.Pointer) {
	g := C.PyGILState_Ensure()
	C.Py_DecRef((*C.PyObject)(p))
	C.PyGILState_Release(g)
}
