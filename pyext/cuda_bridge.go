package pyext

/*
#include <stdint.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/memview/memview/cuda"
	"github.com/memview/memview/memview"
	"github.com/memview/memview/pyext/forkgate"
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

// importEvents holds, for each imported CUDA buffer whose producer named a
// stream, an event recorded on that stream at import: memview's work on the
// buffer waits for it on the device (cuStreamWaitEvent), never on the host.
var importEvents sync.Map // *memview.Buffer -> *cuda.Event

// opStream is the stream memview's work on dst (and src) runs on: handle h
// (0: the legacy default stream) of the device involved. Work waits for the
// producers of imported operands first.
func opStream(h C.uintptr_t, arrays ...*memview.Array) (*cuda.Stream, error) {
	ordinal := 0
	for _, a := range arrays {
		if cuda.ThroughDriver(a.Device()) {
			ordinal = a.Device().ID
			break
		}
	}
	s := cuda.StreamOf(ordinal, uintptr(h))
	for _, a := range arrays {
		if ev, ok := importEvents.Load(a.Buffer()); ok {
			if err := ev.(*cuda.Event).WaitOn(s); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
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

// pending is the stream left with work on dst after an operation: the stream's
// handle when the work was enqueued without a host wait (device-only work),
// else 0.
func pending(s *cuda.Stream, arrays ...*memview.Array) C.uintptr_t {
	for _, a := range arrays {
		if !cuda.ThroughDriver(a.Device()) {
			return 0
		}
	}
	return C.uintptr_t(s.Handle())
}

//export mvgo_copy_to_device
func mvgo_copy_to_device(h C.uintptr_t, device *C.char, order C.char, stream C.uintptr_t,
	pool C.uint64_t, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	defer forkgate.Enter()() // may run without the GIL (module.c)
	var left C.uintptr_t
	rc = derive(h, m, e, func(a *memview.Array) (*memview.Array, error) {
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
		s, err := opStream(stream, out, a)
		if err == nil {
			err = cuda.Copy(out, a, s)
		}
		if err != nil {
			_ = out.Release()
			return nil, err
		}
		left = pending(s, out, a)
		return out, nil
	})
	if rc == 0 {
		m.stream = C.int64_t(left) // after derive's fillMeta, which clears it
	}
	return rc
}

//export mvgo_copyto
func mvgo_copyto(dst, src C.uintptr_t, stream C.uintptr_t, left *C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	defer forkgate.Enter()() // may run without the GIL (module.c)
	return withArray(dst, e, func(d *memview.Array) error {
		s, err := lookup(uintptr(src))
		if err != nil {
			return err
		}
		if hostOnly(d, s) {
			return memview.CopyInto(d, s)
		}
		st, err := opStream(stream, d, s)
		if err != nil {
			return err
		}
		if err := cuda.Copy(d, s, st); err != nil {
			return err
		}
		*left = pending(st, d, s)
		return nil
	})
}

//export mvgo_fill
func mvgo_fill(h C.uintptr_t, item unsafe.Pointer, n C.int64_t, stream C.uintptr_t, left *C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	defer forkgate.Enter()() // may run without the GIL (module.c)
	b := C.GoBytes(item, C.int(n))
	return withArray(h, e, func(a *memview.Array) error {
		if hostOnly(a) {
			return a.FillBytes(b)
		}
		st, err := opStream(stream, a)
		if err != nil {
			return err
		}
		if err := cuda.Fill(a, b, st); err != nil {
			return err
		}
		*left = pending(st, a)
		return nil
	})
}

// recordImport records an event on the producer's stream of an imported CUDA
// array (on device dev), when there is a driver and a stream; nil otherwise.
func recordImport(dev memview.Device, stream uintptr) (*cuda.Event, error) {
	if stream == 0 || !cuda.Available() {
		return nil, nil
	}
	ev, err := cuda.Record(cuda.StreamOf(dev.ID, stream))
	if err != nil {
		return nil, fmt.Errorf("stream %#x: %w", stream, err)
	}
	return ev, nil
}

// forgetImport destroys the event of an imported buffer, when its memory goes.
func forgetImport(b *memview.Buffer) {
	if ev, ok := importEvents.LoadAndDelete(b); ok {
		_ = ev.(*cuda.Event).Destroy()
	}
}

// owned streams made by mv.cuda.Stream, by handle.
var streams sync.Map // uintptr -> *cuda.Stream

//export mvgo_stream_create
func mvgo_stream_create(ordinal C.int, nonBlocking C.int, out *C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	s, err := cuda.NewStream(int(ordinal), nonBlocking != 0)
	if err != nil {
		return setErr(e, err)
	}
	streams.Store(s.Handle(), s)
	*out = C.uintptr_t(s.Handle())
	return 0
}

//export mvgo_stream_destroy
func mvgo_stream_destroy(h C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	s, ok := streams.LoadAndDelete(uintptr(h))
	if !ok {
		return setErr(e, fmt.Errorf("memview: stream %#x was not made by memview or is already closed: %w", uintptr(h), memview.ErrInvalid))
	}
	if err := s.(*cuda.Stream).Destroy(); err != nil {
		return setErr(e, err)
	}
	return 0
}

//export mvgo_stream_sync
func mvgo_stream_sync(ordinal C.int, h C.uintptr_t, query C.int, done *C.int, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	defer forkgate.Enter()() // may run without the GIL (module.c)
	s := cuda.StreamOf(int(ordinal), uintptr(h))
	if v, ok := streams.Load(uintptr(h)); ok {
		s = v.(*cuda.Stream)
	}
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
