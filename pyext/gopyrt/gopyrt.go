// Package gopyrt is what the Go code gopy generates for a memview extension
// calls at run time. build.py patches three calls into every function gopy
// generates: Recover, deferred, so that a panic in a bound Go package raises
// a Python exception instead of aborting the interpreter; SetError, so that
// a Go error becomes an exception of the right class (ExceptionFor), with an
// error type's fields as attributes, instead of gopy's RuntimeError for
// everything; and Message, so that its message reads as
// memview's own do (no ": invalid argument" at the end). And Value, where
// gopy's code reads a Go value from a handle with an unchecked type assertion.
//
// It is not bound by gopy itself; only generated code imports it.
package gopyrt

/*
#cgo CFLAGS: -Wall -Werror=implicit-function-declaration -Werror=int-conversion -Werror=incompatible-pointer-types
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

extern PyObject *mv_exception_type(int kind); // pyext's core_errors.c: the class of an MV_*_ERROR
extern void mv_raise_go_error(PyObject *cls, const char *msg, const char *fields); // pyext's gopy_fast.c

// raise_error raises cls(msg) with fields' attributes (NULL: none).
static void
raise_error(void *cls, const char *msg, const char *fields)
{
	mv_raise_go_error((PyObject *)cls, msg, fields);
}

static void
raise(int kind, const char *msg)
{
	PyErr_SetString(mv_exception_type(kind), msg);
}

// std_exception: the built-in exception class a Go standard sentinel maps to (stdClass).
static void *
std_exception(int k)
{
	switch (k) {
	case 0: return PyExc_EOFError;
	case 1: return PyExc_FileNotFoundError;
	case 2: return PyExc_FileExistsError;
	case 3: return PyExc_PermissionError;
	case 4: return PyExc_TimeoutError;
	}
	return NULL;
}

static void
restore_thread(void *ts)
{
	PyEval_RestoreThread((PyThreadState *)ts);
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"unsafe"

	"github.com/go-python/gopy/gopyh"

	"github.com/memview/memview/memview"
	"github.com/memview/memview/pyext/errkind"
	"github.com/memview/memview/pyext/pymsg"
)

// kind is the Python exception for err: the one memview raises for the
// sentinel err wraps (docs/go/index.md, the type table), else RuntimeError, as gopy does.
func kind(err error) int { return errkind.Of(err, errkind.Runtime) }

// ExceptionFor returns the Python exception class (a borrowed PyObject*) to
// raise for err: TypeError, IndexError, BufferError, MemoryError, ValueError
// or memview.cuda.CUDAError when err wraps the memview or cuda error that
// memview itself raises it for, else RuntimeError.
//
// A sentinel error of a bound package in err's chain comes first: the
// exception class memview made for it (sentinels.go), or the built-in one of
// a standard library sentinel (io.EOF is EOFError).
func ExceptionFor(err error) unsafe.Pointer {
	if c := sentinelClass(err); c != nil {
		return c
	}
	if c := stdClass(err); c != nil {
		return c
	}
	return unsafe.Pointer(C.mv_exception_type(C.int(kind(err))))
}

// stdErrors are the standard library's sentinels that raise Python's
// built-in exceptions, with the std_exception number of each.
var stdErrors = []struct {
	err error
	k   C.int
}{
	{io.EOF, 0}, {io.ErrUnexpectedEOF, 0}, {fs.ErrNotExist, 1}, {fs.ErrExist, 2},
	{fs.ErrPermission, 3}, {context.DeadlineExceeded, 4},
}

// stdClass is the built-in exception class of the first standard sentinel
// err matches (stdErrors, in that order), or nil.
func stdClass(err error) unsafe.Pointer {
	for _, s := range stdErrors {
		if errors.Is(err, s.err) {
			return C.std_exception(s.k)
		}
	}
	return nil
}

// SetError raises the Python exception for err (ExceptionFor) with the
// message estr (a C string the caller owns) and, for a bound error type, its
// fields as attributes (Fields). gopy's patched path calls it with the GIL.
func SetError(err error, estr unsafe.Pointer) {
	var fields *C.char
	if f := Fields(err); f != "" {
		fields = C.CString(f)
		defer C.free(unsafe.Pointer(fields))
	}
	C.raise_error(ExceptionFor(err), (*C.char)(estr), fields)
}

// Message is err's message as the Python exception carries it: without the
// text of the memview sentinel it wraps (pymsg.Text), as for memview's own
// errors.
func Message(err error) string { return pymsg.Text(err) }

// ErrorArg is the Go error a bound function's error parameter gets from
// Python on gopy's path, which hands it over as a string: nil for "" (what
// memview's wrapper passes for None), else an error with that message.
func ErrorArg(msg string) error {
	if msg == "" {
		return nil
	}
	return errors.New(msg)
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
	k, text := errkind.Runtime, fmt.Sprintf("Go panic: %v", r)
	if err, ok := r.(error); ok {
		k, text = kind(err), "Go panic: "+Message(err)
	}
	if err, ok := r.(badHandle); ok {
		text = Message(err)
	}
	msg := C.CString(text)
	defer C.free(unsafe.Pointer(msg))
	C.raise(C.int(k), msg)
}

// BadHandle panics with an error wrapping memview.ErrInvalid: a method of the
// bound Go type typ was called on a handle gopy does not know (forged, or of
// an object already gone). Recover turns it into a ValueError.
func BadHandle(err error, typ string) {
	panic(badHandle{fmt.Errorf("the Go %s of this method call is gone or was never made (%v): %w",
		typ, err, memview.ErrInvalid)})
}

// Value is the Go value v that gopy's table holds for a handle, as the T (a
// pointer to struct t) a bound method's receiver or a parameter needs: v
// itself, or the t it embeds (gopy's Embed). gopy's own code asserts the type
// and panics when it is wrong, as for a gopy object made with the handle of
// another Go value (rgbimage.Image(handle=other.handle)); Value panics with
// an error Recover raises as ValueError, naming both types.
func Value[T any](v any, t reflect.Type) T {
	if r, ok := v.(T); ok {
		return r
	}
	if reflect.Indirect(reflect.ValueOf(v)).Kind() == reflect.Struct { // Embed reads struct fields only
		if r, ok := gopyh.Embed(v, t).(T); ok {
			return r
		}
	}
	var want T
	panic(badHandle{fmt.Errorf("a %T is needed here, and the gopy object holds a %T "+
		"(made with the handle of another Go value): %w", want, v, memview.ErrInvalid)})
}

// Receiver is the receiver of a bound method of the struct type t, read from
// its gopy handle h (gopy names the Go type typ, as "*pkg.T") as gopy's
// method reads it, for the call entries memview generates (gopyfast.py): a
// handle gopy does not know panics with BadHandle, a handle of a Go value of
// another type as Value does; Recover, or the entry's recover, raises either
// as ValueError.
func Receiver[T any](h int64, typ string, t reflect.Type) T {
	v, err := gopyh.VarFromHandleTry(gopyh.CGoHandle(h), typ)
	if err != nil {
		BadHandle(err, typ)
	}
	return Value[T](v, t)
}

// badHandle is the panic value of BadHandle: an error, reported without the
// "Go panic" prefix.
type badHandle struct{ error }

func (b badHandle) Unwrap() error { return b.error }
