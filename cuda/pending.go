package cuda

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/memview/memview/memview"
)

// pending is the device work memview has left unfinished on the memory of one
// buffer: the stream it was enqueued on, which the CUDA Array Interface names
// to consumers, and an event recorded after it, which memview's own later work
// on another stream waits for on the device, and host access waits for on the
// host. It is the buffer's memview.DeviceState, so every view of the memory —
// made before or after the work — sees the same state.
//
// The stream handle is also kept in word, 8 bytes of C memory that pyext's C
// code reads when it builds __cuda_array_interface__ (no Go call on that
// path).
type pending struct {
	word   *int64 // the handle exports report; 0: nothing pending
	device int

	mu       sync.Mutex
	stream   *Stream // nil: nothing pending
	event    uintptr // recorded on stream after the pending work; 0: none
	eventDev int     // the device whose context made event
	ordered  bool    // memview's work waits for event (false for an import with sync off)
	closed   bool
}

var _ memview.DeviceState = (*pending)(nil)

// stateOf returns the pending state of b's memory, attaching a new one the
// first time.
func stateOf(b *memview.Buffer) *pending {
	if st, ok := b.DeviceState().(*pending); ok {
		return st
	}
	st := &pending{word: drvNewWord(), device: b.Device().ID}
	if got := b.AttachDeviceState(st); got != memview.DeviceState(st) {
		drvFreeWord(st.word)
		return got.(*pending)
	}
	return st
}

// PendingStreamWord returns the address of 8 bytes of C memory holding the
// handle of the stream with memview's pending work on b's memory (0 when
// nothing is pending), shared by every view of b, valid until b's memory goes.
// C code reads it atomically to report the stream in the CUDA Array Interface.
func PendingStreamWord(b *memview.Buffer) unsafe.Pointer { return unsafe.Pointer(stateOf(b).word) }

// PendingStream returns the handle of the stream with pending work on b's
// memory, or 0.
func PendingStream(b *memview.Buffer) uintptr {
	st, ok := b.DeviceState().(*pending)
	if !ok {
		return 0
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.word == nil {
		return 0
	}
	return uintptr(atomic.LoadInt64(st.word))
}

// Imported records the stream a CUDA Array Interface producer named for the
// memory of b (0: none): exports of b report it, and, when order is set and
// a driver is present, an event is recorded on it now so that memview's own
// work on the memory waits for the producer's (on the device).
func Imported(b *memview.Buffer, stream uintptr, order bool) error {
	if stream == 0 {
		return nil
	}
	st := stateOf(b)
	st.mu.Lock()
	defer st.mu.Unlock()
	s := StreamFor(st.device, stream)
	if order && Available() {
		if err := st.recordLocked(s); err != nil {
			return err
		}
	}
	st.setLocked(s, order)
	return nil
}

// setLocked makes s the pending stream.
func (st *pending) setLocked(s *Stream, ordered bool) {
	if st.stream != nil && st.stream != s {
		st.stream.untrack(st)
	}
	st.stream, st.ordered = s, ordered
	if s == nil {
		atomic.StoreInt64(st.word, 0)
		return
	}
	s.track(st)
	atomic.StoreInt64(st.word, int64(s.handle))
}

// recordLocked records the state's event on s (making one in s's device the
// first time, or when s is on another device).
func (st *pending) recordLocked(s *Stream) error {
	ctx, err := s.ctx()
	if err != nil {
		return err
	}
	if st.event != 0 && st.eventDev != s.device {
		if d, err := deviceFor(st.eventDev); err == nil {
			_ = drvEventDestroy(d.ctx, st.event)
		}
		st.event = 0
	}
	if st.event == 0 {
		e, err := drvEventCreate(ctx)
		if err != nil {
			return err
		}
		st.event, st.eventDev = e, s.device
	}
	return drvEventRecord(ctx, st.event, s.handle)
}

// waitOn makes work enqueued on s from now on wait for the pending work (on
// the device; nothing to do when it is on s already, or unordered).
func (st *pending) waitOn(s *Stream) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stream == nil || !st.ordered || st.event == 0 || st.stream.same(s) {
		return nil
	}
	ctx, err := s.ctx()
	if err != nil {
		return err
	}
	return drvStreamWaitEvent(ctx, s.handle, st.event)
}

// waitHost blocks until the pending work is done and clears it. An import
// whose ordering was turned off keeps its stream: memview does not wait for it.
func (st *pending) waitHost() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stream == nil || !st.ordered || st.event == 0 {
		return nil
	}
	d, err := deviceFor(st.eventDev)
	if err != nil {
		return err
	}
	if err := drvEventSynchronize(d.ctx, st.event); err != nil {
		return err
	}
	st.setLocked(nil, false)
	return nil
}

// left records that memview's work on s is now pending on this memory.
func (st *pending) left(s *Stream) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.recordLocked(s); err != nil {
		return err
	}
	st.setLocked(s, true)
	return nil
}

// done records that everything enqueued so far on s has finished, as seen
// after synchronising s: work pending on s, or on another stream that s
// waited for, is over.
func (st *pending) done(s *Stream) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stream != nil && st.ordered {
		st.setLocked(nil, false)
	}
}

// streamClosed moves work pending on s, an owned stream about to be
// destroyed, to the legacy default stream of its device, which is made to
// wait for it (on the device): exports then name a live stream that orders
// after the work.
func (st *pending) streamClosed(s *Stream) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stream != s {
		return nil
	}
	legacy := StreamOf(s.device, LegacyStream)
	if st.event != 0 {
		ctx, err := legacy.ctx()
		if err != nil {
			return err
		}
		if err := drvStreamWaitEvent(ctx, LegacyStream, st.event); err != nil {
			return err
		}
	}
	st.setLocked(legacy, st.ordered)
	return nil
}

// Close waits for pending work (the memory is about to be freed or given back
// to its owner), and gives back the event and the word.
func (st *pending) Close() error {
	err := st.waitHost()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return err
	}
	st.closed = true
	st.setLocked(nil, false)
	if st.event != 0 {
		if d, derr := deviceFor(st.eventDev); derr == nil {
			err = errors.Join(err, drvEventDestroy(d.ctx, st.event))
		}
		st.event = 0
	}
	drvFreeWord(st.word)
	st.word = nil
	return err
}

// states returns the pending states of the buffers of arrays.
func states(arrays ...*memview.Array) []*pending {
	out := make([]*pending, 0, len(arrays))
	for _, a := range arrays {
		if a.Device() == (memview.Device{}) {
			continue
		}
		st := stateOf(a.Buffer())
		for _, o := range out {
			if o == st {
				st = nil
				break
			}
		}
		if st != nil {
			out = append(out, st)
		}
	}
	return out
}

// WaitHost blocks until memview's work pending on the memory of each array is
// done: call it before the CPU reads or writes memory a GPU may still be
// using (memview's own host paths do). Memory with no state has nothing
// pending.
func WaitHost(arrays ...*memview.Array) error {
	for _, a := range arrays {
		if st, ok := a.Buffer().DeviceState().(*pending); ok {
			if err := st.waitHost(); err != nil {
				return err
			}
		}
	}
	return nil
}

// WaitOn makes work enqueued on s from now on wait, on the device, for the work
// pending on the memory of each array — memview's own and an import's
// producer's — as a consumer handed s by an exchange protocol must (DLPack's
// stream rule): the host does not block. Unlike memview's own ordering, it
// also orders after the stream of an import made with ordering off: the
// consumer was promised the memory is ready on s.
func WaitOn(s *Stream, arrays ...*memview.Array) error {
	for _, st := range states(arrays...) {
		if err := st.handOver(s); err != nil {
			return err
		}
	}
	return nil
}

// handOver makes s wait for the state's stream (see WaitOn).
func (st *pending) handOver(s *Stream) error {
	st.mu.Lock()
	stream, ordered, event := st.stream, st.ordered, st.event
	st.mu.Unlock()
	switch {
	case stream == nil || stream.same(s):
		return nil
	case ordered && event != 0:
		return st.waitOn(s)
	}
	ev, err := Record(stream) // the import's stream, as its producer named it
	if err != nil {
		return fmt.Errorf("cuda: record an event on stream %#x: %w", stream.handle, err)
	}
	werr := ev.WaitOn(s)
	// An event a stream still waits on may be destroyed: the driver frees it
	// once the wait is over.
	if derr := ev.Destroy(); werr == nil {
		werr = derr
	}
	return werr
}

// HasPending reports whether work is pending on a's memory (memview's own, or
// the stream an import's producer named).
func HasPending(a *memview.Array) bool {
	st, ok := a.Buffer().DeviceState().(*pending)
	if !ok {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.stream != nil
}
