// Package gopyrt is what the Go code gopy generates for a memview extension
// calls at run time. build.py patches two calls into every function gopy
// generates: Recover, deferred, so that a panic in a bound Go package raises
// a Python exception instead of aborting the interpreter; and ExceptionFor,
// so that a Go error becomes an exception of the right type instead of
// gopy's RuntimeError for everything.
//
// It is not bound by gopy itself; only generated code imports it.
package gopyrt

/*
#cgo CFLAGS: -Wall -Werror=implicit-function-declaration -Werror=int-conversion -Werror=incompatible-pointer-types
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

extern PyObject *mv_cuda_error; // memview.cuda.CUDAError, made by pyext (module.c)

static PyObject *
exception(int kind)
{
	switch (kind) {
	case 1: return PyExc_ValueError;
	case 2: return PyExc_TypeError;
	case 3: return PyExc_IndexError;
	case 4: return PyExc_BufferError;
	case 5: return PyExc_MemoryError;
	case 7: return mv_cuda_error ? mv_cuda_error : PyExc_RuntimeError;
	default: return PyExc_RuntimeError;
	}
}

static void
raise(int kind, const char *msg)
{
	PyErr_SetString(exception(kind), msg);
}

static void
restore_thread(void *ts)
{
	PyEval_RestoreThread((PyThreadState *)ts);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/memview/memview/cuda"
	"github.com/memview/memview/memview"
)

// Exception kinds, as pyext's bridge.h numbers them.
const (
	kindRuntime = 0
	kindValue   = 1
	kindType    = 2
	kindIndex   = 3
	kindBuffer  = 4
	kindMemory  = 5
	kindCUDA    = 7
)

// kind is the Python exception for err: the one memview raises for the
// sentinel err wraps (README, Errors), else RuntimeError, as gopy does.
func kind(err error) int {
	switch {
	case errors.Is(err, memview.ErrType):
		return kindType
	case errors.Is(err, memview.ErrIndex):
		return kindIndex
	case errors.Is(err, memview.ErrExported):
		return kindBuffer
	case errors.Is(err, memview.ErrNoMemory):
		return kindMemory
	case errors.Is(err, memview.ErrInvalid), errors.Is(err, memview.ErrReadOnly), errors.Is(err, memview.ErrReleased),
		errors.Is(err, cuda.ErrInvalidDevice), errors.Is(err, cuda.ErrInvalidStream):
		return kindValue
	case errors.Is(err, cuda.ErrNoDevice), errors.As(err, new(*cuda.Error)):
		return kindCUDA
	default:
		return kindRuntime
	}
}

// ExceptionFor returns the Python exception class (a borrowed PyObject*) to
// raise for err: TypeError, IndexError, BufferError, MemoryError, ValueError
// or memview.cuda.CUDAError when err wraps the memview or cuda error that
// memview itself raises it for, else RuntimeError.
func ExceptionFor(err error) unsafe.Pointer {
	return unsafe.Pointer(C.exception(C.int(kind(err))))
}

// Recover is deferred first in every function gopy generates, as
//
//	defer func() { gopyrt.Recover(recover(), unsafe.Pointer(&_saved_thread)) }()
//
// where _saved_thread is the thread state the function saved when it
// released the GIL, and which the patched code sets to nil once it has taken
// the GIL back. After a panic, Recover takes the GIL back if the function had
// not, and sets the Python exception: the one ExceptionFor gives when the
// panic value is an error (a View index out of range is an IndexError), else
// RuntimeError, with "Go panic: " and the value. The function then returns
// zero values, and the caller raises the exception.
func Recover(r any, savedThread unsafe.Pointer) {
	if r == nil {
		return
	}
	ts := (*unsafe.Pointer)(savedThread)
	if *ts != nil {
		C.restore_thread(*ts)
		*ts = nil
	}
	k, text := kindRuntime, fmt.Sprintf("Go panic: %v", r)
	if err, ok := r.(error); ok {
		k = kind(err)
	}
	if err, ok := r.(badHandle); ok {
		text = err.Error()
	}
	msg := C.CString(text)
	defer C.free(unsafe.Pointer(msg))
	C.raise(C.int(k), msg)
}

// BadHandle panics with an error wrapping memview.ErrInvalid: a method of a
// bound Go type was called on a handle gopy does not know (forged, or of an
// object already gone). Recover turns it into a ValueError.
func BadHandle(err error) {
	panic(badHandle{fmt.Errorf("%w: the Go object of this method call is gone or was never made (%w)",
		err, memview.ErrInvalid)})
}

// badHandle is the panic value of BadHandle: an error, reported without the
// "Go panic" prefix.
type badHandle struct{ error }

func (b badHandle) Unwrap() error { return b.error }
