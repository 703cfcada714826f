package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/memview/memview/cuda"
	"github.com/memview/memview/memview"
)

// Imports wrap memory that Python objects own — a PEP 3118 exporter's buffer or a
// CUDA Array Interface producer's device memory — without copying it. Only the
// span the view can reach is wrapped (element 0 sits at -lo inside it), and the
// owner is given back (the Py_buffer released, the object decref'd) when the last
// reference to that memory goes.

// importBuffer wraps a Py_buffer's memory; token is the Py_buffer.
func importBuffer(buf unsafe.Pointer, shape []int, cstrides *C.int64_t, itemsize int,
	format string, readonly bool, token unsafe.Pointer) (*memview.Array, error) {
	const who = "memview.from_buffer"
	dt, err := memview.DTypeOfExport(format, itemsize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", who, err)
	}
	strides, lo, hi, err := foreignLayout(who, dt, uintptr(buf), shape, cstrides)
	if err != nil {
		return nil, err
	}
	return adopt(who, dt, shape, strides, lo, readonly, func(release func()) *memview.Buffer {
		return memview.WrapExternal(unsafe.Add(buf, lo), hi-lo, readonly, release)
	}, nil, func() { C.mv_release_import(token) })
}

// importDevice wraps CUDA memory described by a CUDA Array Interface, never
// touching it; token is the producer object, on the device importedDevice finds.
//
// The producer's stream stays with the memory (exports report it); when sync is
// set, an event is recorded on it now and memview's later work on the memory
// waits for it, on the device (cuda.Imported).
func importDevice(ptr uintptr, shape []int, cstrides *C.int64_t, typestr string,
	readonly bool, stream uintptr, sync bool, token unsafe.Pointer) (*memview.Array, error) {
	const who = "memview.from_cuda_array_interface"
	dt, err := memview.ParseDType(typestr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", who, err)
	}
	strides, lo, hi, err := foreignLayout(who, dt, ptr, shape, cstrides)
	if err != nil {
		return nil, err
	}
	if ptr == 0 && hi > lo { // an empty array may have a null pointer
		return nil, fmt.Errorf("%s: null data pointer for a non-empty array: %w", who, memview.ErrInvalid)
	}
	if uintptr(-lo) > ptr {
		return nil, fmt.Errorf("%s: strides reach below address 0: %w", who, memview.ErrInvalid)
	}
	if hi > lo && ptr > ^uintptr(0)-uintptr(hi-1) {
		return nil, fmt.Errorf("%s: %d bytes at %#x reach past the end of the address space: %w", who, hi, ptr, memview.ErrInvalid)
	}
	dev, err := importedDevice(who, ptr, hi > lo)
	if err != nil {
		return nil, err
	}
	return adopt(who, dt, shape, strides, lo, readonly, func(release func()) *memview.Buffer {
		return memview.WrapDevice(ptr-uintptr(-lo), hi-lo, readonly, dev, release)
	}, func(b *memview.Buffer) error {
		if err := cuda.Imported(b, stream, sync); err != nil {
			return fmt.Errorf("stream %#x: %w", stream, err)
		}
		return nil
	}, func() { C.mv_release_object(token) })
}

// importedDevice is the device of imported CUDA memory at ptr: the one the
// driver names for the address; for an empty array with no address, the
// device of the calling thread's current context (where the producer made
// it); device 0 where there is no driver, so that interface dicts can still be
// checked on machines without a GPU.
func importedDevice(who string, ptr uintptr, nonEmpty bool) (memview.Device, error) {
	dev := memview.Device{Kind: memview.CUDA}
	if ptr != 0 {
		id, err := cuda.PointerDevice(ptr)
		switch {
		case err == nil:
			dev.ID = id
			return dev, nil
		case nonEmpty && !errors.Is(err, cuda.ErrNoDevice):
			return dev, fmt.Errorf("%s: %#x is not CUDA memory (%v): %w", who, ptr, err, memview.ErrInvalid)
		}
	}
	if id, ok := cuda.CurrentDevice(); ok {
		dev.ID = id
	}
	return dev, nil
}

// foreignLayout checks the layout of memory someone else owns at addr and
// returns its byte strides (C order when cstrides is nil) and the span [lo, hi)
// it reaches, relative to element 0. Strides must be multiples of the item size
// and the data aligned for the dtype, as the SimpleArray seed requires.
func foreignLayout(who string, dt memview.DType, addr uintptr, shape []int,
	cstrides *C.int64_t) (strides []int, lo, hi int, err error) {
	itemsize := dt.Itemsize()
	if cstrides != nil {
		strides = ints(cstrides, C.int(len(shape)))
	} else if strides, err = memview.ContiguousStrides(shape, itemsize, 'C'); err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", who, err)
	}
	for i, s := range strides {
		if s%itemsize != 0 {
			return nil, 0, 0, fmt.Errorf("%s: stride %d of axis %d is not a multiple of the item size %d: %w",
				who, s, i, itemsize, memview.ErrInvalid)
		}
	}
	if align := alignment(dt); addr%uintptr(align) != 0 {
		return nil, 0, 0, fmt.Errorf("%s: data at %#x is not %d-byte aligned for %s: %w",
			who, addr, align, dt, memview.ErrInvalid)
	}
	lo, hi = memview.Layout{Shape: shape, Strides: strides, Itemsize: itemsize}.Span()
	return strides, lo, hi, nil
}

// adopt makes an array over the buffer wrap returns, and runs ready (if not
// nil) on the buffer. giveBack runs when the last reference to the buffer goes
// — but only if adopt succeeded: on failure the caller still owns the memory
// and gives it back itself.
func adopt(who string, dt memview.DType, shape, strides []int, lo int, readonly bool,
	wrap func(release func()) *memview.Buffer, ready func(*memview.Buffer) error, giveBack func()) (*memview.Array, error) {
	armed := false
	b := wrap(func() {
		if armed {
			giveBack()
		}
	})
	a, err := memview.NewArray(b, dt, shape, strides, -lo, readonly)
	if err == nil && ready != nil {
		if err = ready(b); err != nil {
			_ = a.Release() // the buffer keeps the reference below
		}
	}
	if err != nil {
		_ = b.Release() // not armed
		return nil, fmt.Errorf("%s: %w", who, err)
	}
	armed = true
	_ = b.Release() // the array holds its own reference now
	return a, nil
}

// alignment is the address alignment an element of dt needs: a basic type's
// natural alignment, however the exporter spells it ("=d", "q"); for another
// format type, the alignment its format asks for (native '@' items and
// records align their fields; standard-size items, as in ">i", need none, as
// in the struct module).
func alignment(dt memview.DType) int {
	if b, ok := dt.Basic(); ok { // "=d" or "q" as an exporter spells a basic type
		dt = b
	}
	if !dt.IsBasic() {
		return max(1, dt.Item().Align)
	}
	if dt.Kind() == 'c' {
		return dt.Itemsize() / 2
	}
	return dt.Itemsize()
}

// mvgo_import_info describes the items of an exporter's format as importBuffer
// reads it — item size, the alignment the data needs, and the array's format,
// name and typestr — for imports checked in C (ops_import.c).
//
//export mvgo_import_info
func mvgo_import_info(format *C.char, m *C.mv_meta, align *C.int, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	dt, err := memview.DTypeFromFormat(C.GoString(format))
	if err != nil {
		return setErr(e, fmt.Errorf("memview.from_buffer: %w", err))
	}
	m.itemsize = C.int64_t(dt.Itemsize())
	*align = C.int(alignment(dt))
	putDType(m, dt)
	return 0
}
