package pyext

/*
#include <stdint.h>
#include "bridge.h"
#include "memory_bridge.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/memview/memview/cuda"
	"github.com/memview/memview/memview"
)

// The Go half of memview.Buffer (mem_buffer.c): C holds a handle to a
// *memview.Buffer (one reference) and caches its metadata; these functions
// make, slice, resize and view buffers. Called from C with the GIL held
// unless a comment says otherwise; each recovers panics (guard).

// fillBufMeta copies b's metadata into m and gives C a new handle to it (made
// last, after everything that can fail).
func fillBufMeta(b *memview.Buffer, m *C.mv_buf_meta) {
	storeCPtr(&m.data, b.Pointer())
	m.size = C.int64_t(b.Len())
	m.capacity = C.int64_t(b.Capacity())
	m.mutable_ = cbool(b.Mutable())
	m.resizable = cbool(b.Resizable())
	dev := b.Device()
	m.device_kind = C.int32_t(dev.Kind)
	m.device_id = C.int32_t(dev.ID)
	putString(unsafe.Pointer(&m.device[0]), len(m.device), dev.String())
	m.handle = C.uintptr_t(bufferHandles.put(b))
}

// finishBuf hands a new buffer to C, or reports err.
func finishBuf(b *memview.Buffer, err error, m *C.mv_buf_meta, e *C.mv_err) C.int {
	if err == nil {
		if err = roomForHandle(); err != nil {
			_ = b.Release()
		}
	}
	if err != nil {
		return setErr(e, err)
	}
	fillBufMeta(b, m)
	return 0
}

// bufferOf returns the buffer behind a handle C passed in.
func bufferOf(h C.uintptr_t) (*memview.Buffer, error) {
	b, ok := bufferHandles.get(uintptr(h))
	if !ok {
		if h == 0 {
			return nil, fmt.Errorf("memview: operation on a released buffer: %w", memview.ErrReleased)
		}
		return nil, fmt.Errorf("memview: invalid buffer handle %#x: %w", uintptr(h), memview.ErrReleased)
	}
	return b, nil
}

// mvgo_buffer_new allocates a zero-filled buffer of size bytes from the pool
// with id pool (0: the default). It may run without the GIL (mem_buffer.c does so
// for pools on a CUDA device).
//
//export mvgo_buffer_new
func mvgo_buffer_new(size C.int64_t, pool C.uint64_t, resizable C.int, m *C.mv_buf_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	p, err := poolByID(pool)
	if err != nil {
		return setErr(e, err)
	}
	var b *memview.Buffer
	if resizable != 0 {
		b, err = memview.NewResizableBuffer(p, int(size))
	} else {
		b, err = memview.NewBuffer(p, int(size))
	}
	return finishBuf(b, err, m, e)
}

// mvgo_buffer_from allocates a buffer holding a copy of n bytes at src (memory
// a Python exporter lends, C-contiguous). It may run without the GIL (mem_buffer.c
// does so for copies of 64 KiB or more).
//
//export mvgo_buffer_from
func mvgo_buffer_from(src unsafe.Pointer, n C.int64_t, pool C.uint64_t, mutable C.int, m *C.mv_buf_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	p, err := poolByID(pool)
	if err != nil {
		return setErr(e, err)
	}
	var data []byte
	if n > 0 {
		data = unsafe.Slice((*byte)(src), int(n))
	}
	b, err := memview.NewBufferFrom(p, data, mutable != 0)
	return finishBuf(b, err, m, e)
}

//export mvgo_buffer_slice
func mvgo_buffer_slice(h C.uintptr_t, offset, length C.int64_t, mutable C.int, m *C.mv_buf_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	b, err := bufferOf(h)
	if err != nil {
		return setErr(e, err)
	}
	var s *memview.Buffer
	if mutable != 0 {
		s, err = b.MutableSlice(int(offset), int(length))
	} else {
		s, err = b.Slice(int(offset), int(length))
	}
	return finishBuf(s, err, m, e)
}

// mvgo_buffer_resize resizes (reserve == 0: Resize(n, shrink)) or reserves
// (Reserve(n)) and writes the new pointer, size and capacity into m (not a
// new handle). It may run without the GIL (mem_buffer.c does so for buffers of
// 64 KiB or more, whose memory may be copied).
//
//export mvgo_buffer_resize
func mvgo_buffer_resize(h C.uintptr_t, n C.int64_t, shrink, reserve C.int, m *C.mv_buf_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	b, err := bufferOf(h)
	if err != nil {
		return setErr(e, err)
	}
	if reserve != 0 {
		err = b.Reserve(int(n))
	} else {
		err = b.Resize(int(n), shrink != 0)
	}
	if err != nil {
		return setErr(e, err)
	}
	storeCPtr(&m.data, b.Pointer())
	m.size = C.int64_t(b.Len())
	m.capacity = C.int64_t(b.Capacity())
	return 0
}

// mvgo_buffer_view makes an array of dtype over the buffer (a nil strides
// pointer: C-contiguous), validated against the buffer's extent.
//
//export mvgo_buffer_view
func mvgo_buffer_view(h C.uintptr_t, dtype *C.char, ndim C.int, shape, strides *C.int64_t, offset C.int64_t,
	m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	b, err := bufferOf(h)
	if err != nil {
		return setErr(e, err)
	}
	dt, err := memview.ParseDType(C.GoString(dtype))
	if err != nil {
		return setErr(e, err)
	}
	var st []int
	if strides != nil {
		st = ints(strides, ndim)
	}
	a, err := memview.NewArray(b, dt, ints(shape, ndim), st, int(offset), false)
	if err != nil {
		return setErr(e, fmt.Errorf("memview: Buffer.view: %w", err))
	}
	return finish(a, nil, m, e)
}

// mvgo_buffer_on gives the buffer as memory of device: a view when the device
// can address it; else, with copy set, a copy from the pool with id pool on
// stream (handle; 0: the legacy default stream), else an error reported as
// BufferError. It may run without the GIL (mem_buffer.c does so for copies).
//
//export mvgo_buffer_on
func mvgo_buffer_on(h C.uintptr_t, device *C.char, copyOK C.int, pool C.uint64_t, stream C.uintptr_t,
	m *C.mv_buf_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	b, err := bufferOf(h)
	if err != nil {
		return setErr(e, err)
	}
	dev, err := memview.ParseDevice(C.GoString(device))
	if err != nil {
		return setErr(e, err)
	}
	if copyOK == 0 {
		v, err := b.ViewOn(dev)
		if err != nil {
			err = fmt.Errorf("%w (%w)", err, errBuffer)
		}
		return finishBuf(v, err, m, e)
	}
	p, err := poolForDevice(pool, dev)
	if err != nil {
		return setErr(e, err)
	}
	ordinal := dev.ID
	if !cuda.ThroughDriver(dev) {
		ordinal = b.Device().ID
	}
	v, err := cuda.ViewOrCopy(b, dev, p, cuda.StreamOf(ordinal, uintptr(stream)))
	return finishBuf(v, err, m, e)
}

// mvgo_array_on makes an array over the same memory as the array behind h,
// addressed as memory of device (an error reported as BufferError when the
// device cannot address it).
//
//export mvgo_array_on
func mvgo_array_on(h C.uintptr_t, device *C.char, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	dev, err := memview.ParseDevice(C.GoString(device))
	if err != nil {
		return setErr(e, err)
	}
	return derive(h, m, e, func(a *memview.Array) (*memview.Array, error) {
		v, err := a.Buffer().ViewOn(dev)
		if err != nil {
			return nil, fmt.Errorf("%w (%w)", err, errBuffer)
		}
		l := a.Layout()
		out, err := memview.NewArray(v, a.DType(), l.Shape, l.Strides, l.Offset, a.ReadOnly())
		if rerr := v.Release(); err == nil && rerr != nil {
			err = rerr
		}
		return out, err
	})
}

//export mvgo_buffer_release
func mvgo_buffer_release(h C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	b, ok := bufferHandles.take(uintptr(h))
	if !ok {
		_, err := bufferOf(h)
		return setErr(e, err)
	}
	if err := b.Release(); err != nil {
		return setErr(e, err)
	}
	return 0
}
