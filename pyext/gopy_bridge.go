package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/go-python/gopy/gopyh"
	"github.com/memview/memview/cuda"
	"github.com/memview/memview/memview"
	"github.com/memview/memview/pyext/pymsg"
)

// Go packages built together with memview (build.py --with) are bound by gopy,
// whose Python objects are integer handles into gopy's handle table
// (gopyh), an ordinary Go package in this same Go runtime. This file turns
// such handles into memview arrays (Go memory to Python) and lends Python's
// memory to Go under a handle the generated code reads back (Python memory
// to Go), never copying.
//
// The lifetime rules (docs/go/index.md, Lifetimes):
//   - A Go slice becomes an array over its backing array, pinned (WrapGo)
//     until the last view or export of it goes, whatever happens to the gopy
//     object or to Go's references meanwhile.
//   - A *memview.Array from Go becomes a new view of it, with its own
//     reference: Go may release its own array at any time.
//   - A memview.Exporter lends a view (memview.Export); its ReleaseView runs
//     when Python has dropped that view and everything made from it.
//   - Memory lent to Go for a call ([]T or *memview.Array parameters) is valid
//     for that call. The *memview.Array Go receives is released when the call
//     returns; Go keeps memory past the call by making its own view
//     (a.Index()), which holds a reference on the buffer and so keeps the
//     Python owner alive until Go releases it. A []T must not be kept.

// gopyValue returns the Go value behind a gopy handle.
func gopyValue(h C.int64_t) (any, error) {
	v, err := gopyh.VarFromHandleTry(gopyh.CGoHandle(h), "")
	if err != nil {
		return nil, fmt.Errorf("memview: gopy handle %d: %v (the Go value is gone, or the handle is not gopy's): %w",
			int64(h), strings.TrimPrefix(err.Error(), "gopy: "), memview.ErrInvalid)
	}
	return v, nil
}

// elemDType maps a Go element kind to the memview dtype with its memory layout.
func elemDType(k reflect.Kind) (memview.DType, bool) {
	switch k {
	case reflect.Bool:
		return memview.Bool, true
	case reflect.Int8:
		return memview.Int8, true
	case reflect.Int16:
		return memview.Int16, true
	case reflect.Int32:
		return memview.Int32, true
	case reflect.Int64:
		return memview.Int64, true
	case reflect.Int:
		return memview.Int64, unsafe.Sizeof(int(0)) == 8
	case reflect.Uint8:
		return memview.Uint8, true
	case reflect.Uint16:
		return memview.Uint16, true
	case reflect.Uint32:
		return memview.Uint32, true
	case reflect.Uint64:
		return memview.Uint64, true
	case reflect.Uint, reflect.Uintptr:
		return memview.Uint64, unsafe.Sizeof(uint(0)) == 8
	case reflect.Float32:
		return memview.Float32, true
	case reflect.Float64:
		return memview.Float64, true
	case reflect.Complex64:
		return memview.Complex64, true
	case reflect.Complex128:
		return memview.Complex128, true
	}
	return memview.DType{}, false
}

// arrayOfGoValue returns a new array over the memory of a Go value gopy
// holds: a slice (or array) of numbers or bools, a *memview.Array, or a
// memview.Exporter. writable is -1 (as the Go side says), 0 (read-only) or
// 1 (writable required).
func arrayOfGoValue(v any, writable int) (*memview.Array, error) {
	if x, ok := v.(memview.Exporter); ok {
		return exportFrom(x, writable)
	}
	if a, ok := v.(*memview.Array); ok {
		if a == nil || a.Buffer() == nil {
			return nil, fmt.Errorf("memview: a nil or zero *memview.Array has no memory: %w", memview.ErrInvalid)
		}
		if writable == 1 && a.ReadOnly() {
			return nil, refused(errors.New("memview: the Go array is read-only, and a writable array was asked for"))
		}
		if writable == 0 {
			return a.AsReadOnly()
		}
		return a.Index()
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	var p unsafe.Pointer
	switch rv.Kind() {
	case reflect.Slice:
		p = rv.UnsafePointer()
	case reflect.Array:
		if !rv.CanAddr() {
			return nil, fmt.Errorf("memview: a Go %T is not addressable: %w", v, memview.ErrType)
		}
		p = rv.Addr().UnsafePointer()
	default:
		return nil, fmt.Errorf("memview: a Go %T has no memory memview can view "+
			"(a slice of numbers or bools, a *memview.Array or a memview.Exporter is needed): %w", v, memview.ErrType)
	}
	dt, ok := elemDType(rv.Type().Elem().Kind())
	if !ok {
		return nil, fmt.Errorf("memview: a Go %T has elements of type %s, which memview has no dtype for: %w",
			v, rv.Type().Elem(), memview.ErrType)
	}
	n := rv.Len()
	b := memview.WrapGo(p, n*dt.Itemsize(), writable == 0)
	a, err := memview.NewArray(b, dt, []int{n}, nil, 0, writable == 0)
	if rerr := b.Release(); err == nil && rerr != nil {
		_ = a.Release()
		err = rerr
	}
	return a, err
}

// exportFrom borrows a view from a Go exporter, read-only unless writable.
func exportFrom(x memview.Exporter, writable int) (*memview.Array, error) {
	req := memview.ReqRecordsRO
	if writable > 0 {
		req = memview.ReqRecords
	}
	a, err := memview.Export(x, req)
	if err != nil {
		return nil, refused(err)
	}
	if writable != 0 {
		return a, nil
	}
	ro, err := a.AsReadOnly() // a read-only view of what was lent
	if rerr := a.Release(); err == nil {
		err = rerr
	}
	return ro, err
}

//export mvgo_from_gopy
func mvgo_from_gopy(h C.int64_t, writable C.int, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	v, err := gopyValue(h)
	if err != nil {
		return setErr(e, err)
	}
	a, err := arrayOfGoValue(v, int(writable))
	return finish(a, err, m, e)
}

// lendSlice registers a []T over n elements at p in gopy's table, with one
// reference, and returns its handle.
func lendSlice[T any](p unsafe.Pointer, n int, name string) gopyh.CGoHandle {
	s := []T{}
	if n > 0 {
		s = unsafe.Slice((*T)(p), n)
	}
	h := gopyh.Register("[]"+name, &s)
	gopyh.IncRef(h)
	return h
}

// sliceLenders make the []T for each Go element type a bound function may
// take, by the name gopysig reports, with the dtype its memory must have.
var sliceLenders = map[string]struct {
	dt   memview.DType
	lend func(p unsafe.Pointer, n int, name string) gopyh.CGoHandle
}{
	"bool":       {memview.Bool, lendSlice[bool]},
	"int8":       {memview.Int8, lendSlice[int8]},
	"int16":      {memview.Int16, lendSlice[int16]},
	"int32":      {memview.Int32, lendSlice[int32]},
	"rune":       {memview.Int32, lendSlice[rune]},
	"int64":      {memview.Int64, lendSlice[int64]},
	"int":        {memview.Int64, lendSlice[int]},
	"uint8":      {memview.Uint8, lendSlice[uint8]},
	"byte":       {memview.Uint8, lendSlice[byte]},
	"uint16":     {memview.Uint16, lendSlice[uint16]},
	"uint32":     {memview.Uint32, lendSlice[uint32]},
	"uint64":     {memview.Uint64, lendSlice[uint64]},
	"uint":       {memview.Uint64, lendSlice[uint]},
	"uintptr":    {memview.Uint64, lendSlice[uintptr]},
	"float32":    {memview.Float32, lendSlice[float32]},
	"float64":    {memview.Float64, lendSlice[float64]},
	"complex64":  {memview.Complex64, lendSlice[complex64]},
	"complex128": {memview.Complex128, lendSlice[complex128]},
}

// lendSliceOf checks that a can be a Go []name and registers that slice. A
// []byte takes any C-contiguous array as its bytes, as hashlib does.
func lendSliceOf(a *memview.Array, name string) (gopyh.CGoHandle, error) {
	l, ok := sliceLenders[name]
	bytes := name == "byte" || name == "uint8"
	switch {
	case !ok:
		return 0, fmt.Errorf("memview: no Go []%s can view memory: %w", name, memview.ErrType)
	case !a.Device().HostAccessible():
		return 0, fmt.Errorf("memview: a Go []%s cannot view memory on %s: %w", name, a.Device(), memview.ErrInvalid)
	case !bytes && !a.DType().SameLayout(l.dt): // float64 however spelled ("d", "1d", "<d")
		return 0, fmt.Errorf("memview: Go takes a []%s here, which needs an array of %s, not %s: %w",
			name, l.dt, a.DType(), memview.ErrType)
	case !a.CContiguous():
		return 0, fmt.Errorf("memview: Go takes a []%s here, which needs a contiguous array "+
			"(shape %s, strides %s); copy it first: %w", name, pymsg.Tuple(a.Shape()), pymsg.Tuple(a.Strides()),
			memview.ErrInvalid)
	case a.ReadOnly():
		return 0, fmt.Errorf("memview: Go takes a []%s here, which Go may write, and the array is read-only: %w",
			name, memview.ErrReadOnly)
	}
	if bytes {
		return l.lend(a.Pointer(), a.NBytes(), name), nil
	}
	return l.lend(a.Pointer(), a.Size(), name), nil
}

// lendArray registers a as the *memview.Array a bound function receives.
func lendArray(a *memview.Array) gopyh.CGoHandle {
	h := gopyh.Register("*memview.Array", a)
	gopyh.IncRef(h)
	return h
}

// lentArrays holds, by gopy handle, the arrays a lend made and unlend releases.
var lentArrays sync.Map // gopyh.CGoHandle -> *memview.Array

//export mvgo_lend_slice
func mvgo_lend_slice(h C.uintptr_t, elem *C.char, out *C.int64_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	return withArray(h, e, func(a *memview.Array) error {
		if err := cuda.WaitHost(a); err != nil { // pinned or managed memory: no GPU work still on it
			return err
		}
		g, err := lendSliceOf(a, C.GoString(elem))
		*out = C.int64_t(g)
		return err
	})
}

//export mvgo_lend_array
func mvgo_lend_array(h C.uintptr_t, out *C.int64_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	return withArray(h, e, func(a *memview.Array) error {
		if a.Device().HostAccessible() {
			if err := cuda.WaitHost(a); err != nil { // pinned or managed memory: no GPU work still on it
				return err
			}
		}
		v, err := a.Index() // Go's own reference, released when the call returns
		if err != nil {
			return err
		}
		g := lendArray(v)
		lentArrays.Store(g, v)
		*out = C.int64_t(g)
		return nil
	})
}

// mvgo_lend_buffer lends the memory of a Py_buffer (token) to Go for a call,
// as kind ("array" or a slice element type), without a Python array object.
// *taken says whether Go took the Py_buffer (it gives it back when the lent
// memory is released); if not, the caller releases it.
//
//export mvgo_lend_buffer
func mvgo_lend_buffer(buf unsafe.Pointer, ndim C.int, shape, strides *C.int64_t, itemsize C.int64_t,
	format *C.char, readonly C.int, token unsafe.Pointer, kind *C.char, out *C.int64_t, taken *C.int,
	e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	*taken = 0
	a, err := importBuffer(buf, ints(shape, ndim), strides, int(itemsize), C.GoString(format), readonly != 0, token)
	if err != nil {
		return setErr(e, err)
	}
	*taken = 1 // from here on, releasing a gives the Py_buffer back
	var g gopyh.CGoHandle
	if k := C.GoString(kind); k == "array" {
		g = lendArray(a)
	} else if g, err = lendSliceOf(a, k); err != nil {
		_ = a.Release()
		return setErr(e, err)
	}
	lentArrays.Store(g, a)
	*out = C.int64_t(g)
	return 0
}

//export mvgo_unlend
func mvgo_unlend(h C.int64_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	if _, err := gopyValue(h); err != nil {
		return setErr(e, err)
	}
	gopyh.DecRef(gopyh.CGoHandle(h))
	if a, ok := lentArrays.LoadAndDelete(gopyh.CGoHandle(h)); ok {
		// Go may have released it itself; anything else is a real error.
		if err := a.(*memview.Array).Release(); err != nil && !errors.Is(err, memview.ErrReleased) {
			return setErr(e, err)
		}
	}
	return 0
}

// errBuffer marks an error reported as BufferError: an exporter refusing a
// request (refused).
var errBuffer = errors.New("buffer request refused")

// refused marks err as an exporter's refusal of a request, raised as
// BufferError with err's own message.
func refused(err error) error { return refusal{err} }

// refusal is err, classified as errBuffer too, with err's message alone.
type refusal struct{ error }

func (r refusal) Unwrap() []error { return []error{r.error, errBuffer} }
