package pyext

/*
#include "gopy_fast.h"
*/
import "C"

import (
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/memview/memview/memview"
	"github.com/memview/memview/pyext/gopyrt"
)

// The call entries generated for bound packages (gopyfast.py, gopy_fast.c)
// lend a *memview.Array parameter the memory of the argument's Py_buffer as
// memview.from_buffer does (importBuffer), with the same dtype and the same
// layout checks, but made for one call: the array and its buffer are one
// allocation (memview.WrapExternalArray), the shape and strides are read in
// place, the dtype of a format comes from a cache, and the Py_buffer given
// back during the call is left to the C entry (gopyrt.Lend). Any refusal
// sends the call to gopy's path, which raises memview.from_buffer's error.
func init() {
	gopyrt.ImportBuffer = lendForCall
}

// A Py_ssize_t (C int64_t) is a Go int: shapes and strides are read in place.
var _ = [1]struct{}{}[unsafe.Sizeof(int(0))-unsafe.Sizeof(C.int64_t(0))]

// lendForCall is gopyrt.ImportBuffer: the *memview.Array over the Py_buffer
// of the mv_fast_lent at p, as importBuffer makes it for memview.from_buffer.
func lendForCall(p unsafe.Pointer) (*memview.Array, *gopyrt.Lend, error) {
	const who = "memview.from_buffer"
	lent := (*C.mv_fast_lent)(p)
	v := &lent.view
	ndim := int(v.ndim)
	if ndim < 0 || ndim > memview.MaxNDim || (ndim > 0 && v.shape == nil) {
		return nil, nil, fmt.Errorf("%s: %d dimensions: %w", who, ndim, memview.ErrInvalid)
	}
	shape := unsafe.Slice((*int)(unsafe.Pointer(v.shape)), ndim)
	var strides []int
	if v.strides != nil {
		strides = unsafe.Slice((*int)(unsafe.Pointer(v.strides)), ndim)
	}
	format := "B"
	if v.format != nil {
		format = cString(unsafe.Pointer(v.format))
	}
	e, err := exportDType(format, int(v.itemsize))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", who, err)
	}
	dt, itemsize := e.dt, e.dt.Itemsize()
	if strides == nil {
		if strides, err = memview.ContiguousStrides(shape, itemsize, 'C'); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", who, err)
		}
	}
	for _, s := range strides {
		if s%itemsize != 0 {
			return nil, nil, fmt.Errorf("%s: a stride is not a multiple of the item size: %w", who, memview.ErrInvalid)
		}
	}
	if uintptr(v.buf)%uintptr(e.align) != 0 {
		return nil, nil, fmt.Errorf("%s: misaligned data: %w", who, memview.ErrInvalid)
	}
	lo, hi := memview.Layout{Shape: shape, Strides: strides, Itemsize: itemsize}.Span()
	lend := (*gopyrt.Lend)(unsafe.Pointer(&lent.state))
	a, err := memview.WrapExternalArray(unsafe.Add(v.buf, lo), hi-lo, v.readonly != 0, func() {
		if !lend.GiveBackInCall() {
			C.mv_fast_give_back(p)
		}
	}, dt, shape, strides, -lo)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", who, err)
	}
	return a, lend, nil
}

// cString is the NUL-terminated string at p, in place (read in Go: a format
// is a few bytes, and a cgo call to strlen would cost more than the scan).
func cString(p unsafe.Pointer) string {
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return unsafe.String((*byte)(p), n)
}

// exportKey is a format as an exporter gives it, with its item size.
type exportKey struct {
	format   string
	itemsize int
}

// exportItems is what importBuffer makes of a format: its dtype and the
// alignment its data needs.
type exportItems struct {
	dt    memview.DType
	align int
}

// exportDTypes caches exportDType: the entry found last (most calls pass one
// format again and again), and a map that is replaced, never changed, so
// that a lookup takes no lock (at most maxExportDTypes formats; beyond them
// every call parses its format).
var exportDTypes struct {
	last atomic.Pointer[exportEntry]
	m    atomic.Pointer[map[exportKey]*exportEntry]
	mu   sync.Mutex
}

// exportEntry is one entry of exportDTypes.
type exportEntry struct {
	key exportKey
	exportItems
}

const maxExportDTypes = 64

// exportDType is memview.DTypeOfExport(format, itemsize), as importBuffer
// reads it, with the alignment it checks; format may point into C memory (it
// is copied before it is kept).
func exportDType(format string, itemsize int) (exportItems, error) {
	key := exportKey{format, itemsize}
	if e := exportDTypes.last.Load(); e != nil && e.key == key {
		return e.exportItems, nil
	}
	if m := exportDTypes.m.Load(); m != nil {
		if e, ok := (*m)[key]; ok {
			exportDTypes.last.Store(e)
			return e.exportItems, nil
		}
	}
	key.format = strings.Clone(format)
	dt, err := memview.DTypeOfExport(key.format, itemsize)
	if err != nil {
		return exportItems{}, err
	}
	e := &exportEntry{key, exportItems{dt, alignment(dt)}}
	exportDTypes.mu.Lock()
	defer exportDTypes.mu.Unlock()
	old := exportDTypes.m.Load()
	if old != nil && len(*old) >= maxExportDTypes {
		return e.exportItems, nil
	}
	m := map[exportKey]*exportEntry{}
	if old != nil {
		m = maps.Clone(*old)
	}
	m[key] = e
	exportDTypes.m.Store(&m)
	exportDTypes.last.Store(e)
	return e.exportItems, nil
}
