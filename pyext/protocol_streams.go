package pyext

/*
#include <stdint.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"sync"

	"github.com/memview/memview/cuda"
	"github.com/memview/memview/memview"
)

// Stream ordering for the exchange protocols. A consumer of a device array
// (through DLPack or the Arrow C device interface) must not read it before the
// work memview left pending on it, nor before the work of the producer it was
// imported from, is done. Both are kept with the memory (package cuda) and
// handed over on the device, by events: the host never blocks.

// mvgo_stream_wait makes the consumer's stream wait for the array's pending work
// (DLPack's stream rule): memview's own, and the producer's of an import, on
// the device. Host memory needs nothing. pending (what C read from the array's
// shared word) is not needed: the state is on the memory.
//
//export mvgo_stream_wait
func mvgo_stream_wait(h C.uintptr_t, pending, consumer C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	return withArray(h, e, func(a *memview.Array) error {
		if !cuda.ThroughDriver(a.Device()) {
			return nil
		}
		return cuda.WaitOn(cuda.StreamOf(a.Device().ID, uintptr(consumer)), a)
	})
}

// syncEvents holds the events handed to consumers as an Arrow sync_event, by
// handle, until the consumer releases the array.
var syncEvents sync.Map // uintptr -> *cuda.Event

// mvgo_sync_event records an event that completes when the array's pending work
// (and its producer's, for an import) is done, and writes its handle to *out; 0
// when nothing is pending.
//
//export mvgo_sync_event
func mvgo_sync_event(h C.uintptr_t, pending C.uintptr_t, out *C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	*out = 0
	return withArray(h, e, func(a *memview.Array) error {
		if !cuda.ThroughDriver(a.Device()) {
			return nil
		}
		if !cuda.HasPending(a) {
			return nil
		}
		// recorded on the stream the work is pending on: it completes after it
		ev, err := cuda.Record(cuda.StreamFor(a.Device().ID, cuda.PendingStream(a.Buffer())))
		if err != nil {
			return err
		}
		syncEvents.Store(ev.Handle(), ev)
		*out = C.uintptr_t(ev.Handle())
		return nil
	})
}

// mvgo_event_destroy destroys an event made by mvgo_sync_event.
//
//export mvgo_event_destroy
func mvgo_event_destroy(ev C.uintptr_t) {
	defer func() { _ = recover() }()
	if v, ok := syncEvents.LoadAndDelete(uintptr(ev)); ok {
		_ = v.(*cuda.Event).Destroy()
	}
}

// mvgo_wait_event makes memview's default stream (the legacy default stream of
// device ordinal) wait for a producer's event, on the device: an Arrow device
// array's sync_event.
//
//export mvgo_wait_event
func mvgo_wait_event(ordinal C.int, ev C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	if err := cuda.EventOf(int(ordinal), uintptr(ev)).WaitOn(cuda.StreamOf(int(ordinal), 0)); err != nil {
		return setErr(e, fmt.Errorf("memview.from_arrow: wait for the producer's sync event: %w", err))
	}
	return 0
}
