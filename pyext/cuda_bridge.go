package pyext

/*
#include <stdint.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/memview/memview/cuda"
	"github.com/memview/memview/memview"
)

// The CUDA half of the bridge: allocation on a device, copies and fills that
// cross devices, streams, and the events that make memview's work wait for the
// producer of an imported CUDA array. Called from C with the GIL held; each
// function recovers panics (guard).

// poolFor returns the pool that allocates on dev (nil: the default host pool).
func poolFor(dev memview.Device) (*memview.Pool, error) {
	if dev == (memview.Device{}) {
		return nil, nil
	}
	return cuda.Pool(dev)
}

// opStream is the stream memview's work on the arrays runs on: handle h (0:
// the legacy default stream) of the device involved — the stream memview made
// with that handle, if it did. The cuda package makes the work wait for what
// is pending on the arrays' memory, and records what it leaves pending there.
func opStream(h C.uintptr_t, arrays ...*memview.Array) *cuda.Stream {
	ordinal := 0
	for _, a := range arrays {
		if cuda.ThroughDriver(a.Device()) {
			ordinal = a.Device().ID
			break
		}
	}
	return cuda.StreamFor(ordinal, uintptr(h))
}

// hostOnly reports whether every array is in plain host memory, where memview's
// own Go code does the work with no driver involved.
func hostOnly(arrays ...*memview.Array) bool {
	for _, a := range arrays {
		if a.Device() != (memview.Device{}) {
			return false
		}
	}
	return true
}

//export mvgo_copy_to_device
func mvgo_copy_to_device(h C.uintptr_t, device *C.char, order C.char, stream C.uintptr_t,
	pool C.uint64_t, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	return derive(h, m, e, func(a *memview.Array) (*memview.Array, error) {
		dev := a.Device()
		if d := C.GoString(device); d != "" {
			var err error
			if dev, err = memview.ParseDevice(d); err != nil {
				return nil, err
			}
		}
		p, err := poolForDevice(pool, dev)
		if err != nil {
			return nil, err
		}
		if hostOnly(a) && dev == (memview.Device{}) {
			return a.Copy(p, byte(order))
		}
		o := byte(order)
		switch o {
		case 'C', 'F':
		case 'A', 'K':
			o = 'C'
			if a.FContiguous() && !a.CContiguous() {
				o = 'F'
			}
		default:
			return nil, fmt.Errorf("memview: copy order %q: want 'C', 'F', 'A' or 'K': %w", o, memview.ErrInvalid)
		}
		out, err := memview.Empty(p, a.Shape(), a.DType(), o)
		if err != nil {
			return nil, err
		}
		if err := cuda.Copy(out, a, opStream(stream, out, a)); err != nil {
			_ = out.Release()
			return nil, err
		}
		return out, nil
	})
}

//export mvgo_copyto
func mvgo_copyto(dst, src C.uintptr_t, stream C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	return withArray(dst, e, func(d *memview.Array) error {
		s, err := lookup(uintptr(src))
		if err != nil {
			return err
		}
		if hostOnly(d, s) {
			return memview.CopyInto(d, s)
		}
		return cuda.Copy(d, s, opStream(stream, d, s))
	})
}

//export mvgo_fill
func mvgo_fill(h C.uintptr_t, item unsafe.Pointer, n C.int64_t, stream C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	b := C.GoBytes(item, C.int(n))
	return withArray(h, e, func(a *memview.Array) error {
		if hostOnly(a) {
			return a.FillBytes(b)
		}
		return cuda.Fill(a, b, opStream(stream, a))
	})
}

//export mvgo_stream_create
func mvgo_stream_create(ordinal C.int, nonBlocking C.int, out *C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	s, err := cuda.NewStream(int(ordinal), nonBlocking != 0)
	if err != nil {
		return setErr(e, err)
	}
	*out = C.uintptr_t(s.Handle())
	return 0
}

//export mvgo_stream_destroy
func mvgo_stream_destroy(h C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	s, ok := cuda.LookupStream(uintptr(h))
	if !ok {
		return setErr(e, fmt.Errorf("memview: stream %#x was not made by memview or is already closed: %w", uintptr(h), memview.ErrInvalid))
	}
	if err := s.Destroy(); err != nil {
		return setErr(e, err)
	}
	return 0
}

//export mvgo_stream_sync
func mvgo_stream_sync(ordinal C.int, h C.uintptr_t, query C.int, done *C.int, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	s := cuda.StreamFor(int(ordinal), uintptr(h))
	if query != 0 {
		ok, err := s.Done()
		if err != nil {
			return setErr(e, err)
		}
		*done = C.int(cbool(ok))
		return 0
	}
	if err := s.Synchronize(); err != nil {
		return setErr(e, err)
	}
	*done = 1
	return 0
}

//export mvgo_cuda_pool_stats
func mvgo_cuda_pool_stats(out *C.int64_t) {
	defer func() { _ = recover() }()
	var live, bytes, count, total C.int64_t
	for _, p := range cuda.Pools() {
		live += C.int64_t(p.NumLive())
		bytes += C.int64_t(p.BytesAllocated())
		count += C.int64_t(p.NumAllocations())
		total += C.int64_t(p.TotalBytesAllocated())
	}
	stats := (*[4]C.int64_t)(unsafe.Pointer(out))
	stats[0], stats[1], stats[2], stats[3] = bytes, live, total, count
}
