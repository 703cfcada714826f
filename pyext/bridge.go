package pyext

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/memview/memview/cuda"
	"github.com/memview/memview/memview"
)

// The functions in this file are called from C (through go_bridge.c) with the
// GIL held. Each recovers panics (guard), reports errors through an mv_err, and
// hands C an array only as a handle (handles.go) plus copied metadata.

// storeCPtr writes p into a pointer-typed slot of C memory (a field of a C
// struct, an out parameter) as a plain word. A pointer-typed store from Go
// passes the collector's write barrier, which also reads the slot's old
// contents as a pointer: in C memory those are whatever the C stack held (C
// declares these structs without zeroing them), and a stale word that points
// into a free span of Go's heap ends the process ("found bad pointer in Go
// heap"). Every pointer pyext hands C goes through here.
func storeCPtr[T any](slot **T, p unsafe.Pointer) {
	*(*uintptr)(unsafe.Pointer(slot)) = uintptr(p)
}

// fillMeta copies an array's metadata into m and gives C a new handle to it.
// The handle is made last, after everything that can fail.
func fillMeta(a *memview.Array, m *C.mv_meta) {
	dt := a.DType()
	shape, strides := a.Shape(), a.Strides()
	storeCPtr(&m.buf, a.Pointer())
	m.len = C.int64_t(a.NBytes())
	m.itemsize = C.int64_t(dt.Itemsize())
	m.ndim = C.int32_t(len(shape))
	m.readonly = cbool(a.ReadOnly())
	putDType(m, dt)
	dev := a.Device()
	m.device_kind = C.int32_t(dev.Kind)
	m.device_id = C.int32_t(dev.ID)
	putString(unsafe.Pointer(&m.device[0]), len(m.device), dev.String())
	for i := range shape {
		m.shape[i] = C.int64_t(shape[i])
		m.strides[i] = C.int64_t(strides[i])
	}
	storeCPtr(&m.pending, nil)
	if cuda.ThroughDriver(dev) {
		storeCPtr(&m.pending, unsafe.Pointer(cuda.PendingStreamWord(a.Buffer())))
	}
	m.handle = C.uintptr_t(newHandle(a))
}

// putDType writes dt's format, name and typestr into m. A format or name too
// long for m.format or m.dtype goes to m.long_format or m.long_dtype,
// malloc'd here and freed by the C receiver; they are made last, after
// everything that can fail.
func putDType(m *C.mv_meta, dt memview.DType) {
	format, name := dt.Format(), dt.Name()
	storeCPtr(&m.long_format, nil)
	storeCPtr(&m.long_dtype, nil)
	putString(unsafe.Pointer(&m.dtype[0]), len(m.dtype), name)
	putString(unsafe.Pointer(&m.typestr[0]), len(m.typestr), dt.Typestr())
	putString(unsafe.Pointer(&m.format[0]), len(m.format), format)
	storeCPtr(&m.runs, fieldRunsC(dt))
	m.normal = cbool(dt.Normal() == dt)
	if len(format) >= len(m.format) {
		storeCPtr(&m.long_format, unsafe.Pointer(C.CString(format)))
	}
	if len(name) >= len(m.dtype) {
		storeCPtr(&m.long_dtype, unsafe.Pointer(C.CString(name)))
	}
}

func cbool(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

// ints copies n int64s from C.
func ints(p *C.int64_t, n C.int) []int {
	if n <= 0 || p == nil {
		return []int{}
	}
	src := unsafe.Slice((*int64)(unsafe.Pointer(p)), int(n))
	out := make([]int, n)
	for i, v := range src {
		out[i] = int(v)
	}
	return out
}

// finish hands a new array to C, or reports err.
func finish(a *memview.Array, err error, m *C.mv_meta, e *C.mv_err) C.int {
	if err == nil {
		if err = roomForHandle(); err != nil {
			_ = a.Release()
		}
	}
	if err != nil {
		return setErr(e, err)
	}
	fillMeta(a, m)
	return 0
}

//export mvgo_empty
func mvgo_empty(ndim C.int, shape *C.int64_t, dtype *C.char, order C.char, device *C.char,
	pool C.uint64_t, zero C.int, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	dt, err := memview.ParseDType(C.GoString(dtype))
	if err != nil {
		return setErr(e, err)
	}
	var p *memview.Pool
	if device != nil || pool != 0 {
		var dev memview.Device // a pool without a device: the CPU
		if device != nil {
			if dev, err = memview.ParseDevice(C.GoString(device)); err != nil {
				return setErr(e, err)
			}
		}
		if p, err = poolForDevice(pool, dev); err != nil {
			return setErr(e, fmt.Errorf("memview: empty on %s: %w", dev, err))
		}
	}
	empty := memview.Empty
	if zero == 0 { // a copy's destination: every byte is written at once
		empty = memview.EmptyUninit
	}
	a, err := empty(p, ints(shape, ndim), dt, byte(order))
	return finish(a, err, m, e)
}

//export mvgo_import
func mvgo_import(buf unsafe.Pointer, ndim C.int, shape, strides *C.int64_t, itemsize C.int64_t,
	format *C.char, readonly C.int, token unsafe.Pointer, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	a, err := importBuffer(buf, ints(shape, ndim), strides, int(itemsize), C.GoString(format),
		readonly != 0, token)
	return finish(a, err, m, e)
}

//export mvgo_wrap_device
func mvgo_wrap_device(ptr C.uintptr_t, ndim C.int, shape, strides *C.int64_t, typestr *C.char,
	readonly C.int, stream C.uintptr_t, sync C.int, token unsafe.Pointer, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	a, err := importDevice(uintptr(ptr), ints(shape, ndim), strides, C.GoString(typestr),
		readonly != 0, uintptr(stream), sync != 0, token)
	return finish(a, err, m, e)
}

// parseDType parses a dtype string from C: a PEP 3118 format first when
// asFormat is set (memview.ParseDTypeOrFormat), else a dtype name first.
func parseDType(name *C.char, asFormat C.int) (memview.DType, error) {
	if asFormat != 0 {
		return memview.ParseDTypeOrFormat(C.GoString(name))
	}
	return memview.ParseDType(C.GoString(name))
}

//export mvgo_dtype_info
func mvgo_dtype_info(name *C.char, asFormat C.int, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	dt, err := parseDType(name, asFormat)
	if err != nil {
		return setErr(e, err)
	}
	m.itemsize = C.int64_t(dt.Itemsize())
	putDType(m, dt)
	return 0
}

//export mvgo_cuda_device_count
func mvgo_cuda_device_count() (n C.int) {
	defer func() {
		if recover() != nil {
			n = 0
		}
	}()
	c, err := cuda.DeviceCount()
	if err != nil {
		return 0
	}
	return C.int(c)
}

//export mvgo_release
func mvgo_release(h C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	if err := dropHandle(uintptr(h)); err != nil {
		return setErr(e, err)
	}
	return 0
}

// withArray runs fn on the array behind h.
func withArray(h C.uintptr_t, e *C.mv_err, fn func(a *memview.Array) error) C.int {
	a, err := lookup(uintptr(h))
	if err == nil {
		err = fn(a)
	}
	if err != nil {
		return setErr(e, err)
	}
	return 0
}

// derive makes a new array from the one behind h and hands it to C.
func derive(h C.uintptr_t, m *C.mv_meta, e *C.mv_err, fn func(a *memview.Array) (*memview.Array, error)) C.int {
	return withArray(h, e, func(a *memview.Array) error {
		v, err := fn(a)
		if err == nil {
			if err = roomForHandle(); err != nil {
				_ = v.Release()
			}
		}
		if err == nil {
			fillMeta(v, m)
		}
		return err
	})
}

//export mvgo_layout_view
func mvgo_layout_view(h C.uintptr_t, offset C.int64_t, n C.int, shape, strides *C.int64_t, format *C.char,
	readonly C.int, out *C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	// A view C computed (pyext/ops_views.c, ops_fields.c) gets its Go array when
	// Go code needs it: its items are the owner's, or those of its own format (a
	// view of record fields); the layout is checked against the buffer here again.
	return withArray(h, e, func(a *memview.Array) error {
		dt := a.DType()
		if f := C.GoString(format); f != dt.Format() {
			var err error
			if dt, err = memview.DTypeFromFormat(f); err != nil {
				return fmt.Errorf("memview: view of a %s array: %w", a.DType(), err)
			}
		}
		v, err := memview.NewArray(a.Buffer(), dt, ints(shape, n), ints(strides, n),
			a.Offset()+int(offset), readonly != 0 || a.ReadOnly())
		if err != nil {
			return fmt.Errorf("memview: view of a %s array: %w", a.DType(), err)
		}
		if err = roomForHandle(); err != nil {
			_ = v.Release()
			return err
		}
		*out = C.uintptr_t(newHandle(v))
		return nil
	})
}

//export mvgo_pool_info
func mvgo_pool_info(backend *C.char, nb C.int, warning *C.char, nw C.int) {
	defer func() { _ = recover() }()
	putString(unsafe.Pointer(backend), int(nb), memview.DefaultPool().BackendName())
	putString(unsafe.Pointer(warning), int(nw), memview.DefaultPoolWarning())
}
