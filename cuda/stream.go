package cuda

import (
	"errors"
	"fmt"
	"sync"
)

// Stream handles with a meaning of their own, as in cuda.h and the CUDA Array
// Interface: the legacy default stream (which orders against every blocking
// stream of its context) and the per-thread default stream.
const (
	LegacyStream    uintptr = 1 // CU_STREAM_LEGACY
	PerThreadStream uintptr = 2 // CU_STREAM_PER_THREAD
)

// Stream creation flags (cuStreamCreate).
const (
	streamDefault     = 0
	streamNonBlocking = 1 // CU_STREAM_NON_BLOCKING: no implicit ordering with the legacy stream
)

// Stream is a CUDA stream of one device: one memview made (NewStream, which
// Destroy destroys) or one made elsewhere and named by its handle (StreamOf).
// A Stream is safe for concurrent use.
type Stream struct {
	handle uintptr
	device int
	owned  bool

	mu        sync.Mutex
	destroyed bool
	pending   map[*pending]struct{} // owned streams: memory with memview's work pending here
}

// owned streams by handle, so that a handle passed back from Python finds the
// Stream memview made (and the memory with work pending on it).
var ownedStreams sync.Map // uintptr -> *Stream

// NewStream creates a stream on device ordinal. A non-blocking stream does not
// wait for the legacy default stream, nor it for it.
func NewStream(ordinal int, nonBlocking bool) (*Stream, error) {
	d, err := deviceFor(ordinal)
	if err != nil {
		return nil, err
	}
	flags := uint(streamDefault)
	if nonBlocking {
		flags = streamNonBlocking
	}
	h, err := drvStreamCreate(d.ctx, flags)
	if err != nil {
		return nil, fmt.Errorf("cuda: new stream on device %d: %w", ordinal, err)
	}
	s := &Stream{handle: h, device: ordinal, owned: true, pending: map[*pending]struct{}{}}
	ownedStreams.Store(h, s)
	return s, nil
}

// StreamOf names a stream made elsewhere (by CuPy, Numba, PyTorch or the
// driver) on device ordinal. Handle 0 means the legacy default stream. The
// caller keeps the stream alive while it is in use, and while memory has work
// pending on it; Destroy does nothing.
func StreamOf(ordinal int, handle uintptr) *Stream {
	if handle == 0 {
		handle = LegacyStream
	}
	return &Stream{handle: handle, device: ordinal}
}

// StreamFor returns the stream memview made with this handle (NewStream, not
// yet destroyed), else StreamOf(ordinal, handle).
func StreamFor(ordinal int, handle uintptr) *Stream {
	if s, ok := ownedStreams.Load(handle); ok {
		return s.(*Stream)
	}
	return StreamOf(ordinal, handle)
}

// LookupStream returns the stream memview made with this handle, if it is
// not yet destroyed.
func LookupStream(handle uintptr) (*Stream, bool) {
	s, ok := ownedStreams.Load(handle)
	if !ok {
		return nil, false
	}
	return s.(*Stream), true
}

// same reports whether s and t are one stream (handles such as the legacy
// stream's name a different stream on each device).
func (s *Stream) same(t *Stream) bool { return s.handle == t.handle && s.device == t.device }

// Handle is the driver's handle (CUstream), as the CUDA Array Interface passes it.
func (s *Stream) Handle() uintptr { return s.handle }

// Device is the ordinal of the stream's device.
func (s *Stream) Device() int { return s.device }

// ctx returns the stream's context, or an error once an owned stream is destroyed.
func (s *Stream) ctx() (uintptr, error) {
	s.mu.Lock()
	dead := s.destroyed
	s.mu.Unlock()
	if dead {
		return 0, fmt.Errorf("cuda: use of destroyed stream %#x: %w", s.handle, ErrInvalidStream)
	}
	d, err := deviceFor(s.device)
	if err != nil {
		return 0, err
	}
	return d.ctx, nil
}

// track and untrack keep the set of memory with work pending on an owned stream.
func (s *Stream) track(st *pending) {
	if !s.owned {
		return
	}
	s.mu.Lock()
	s.pending[st] = struct{}{}
	s.mu.Unlock()
}

func (s *Stream) untrack(st *pending) {
	if !s.owned {
		return
	}
	s.mu.Lock()
	delete(s.pending, st)
	s.mu.Unlock()
}

// Synchronize blocks until all work on the stream is done.
func (s *Stream) Synchronize() error {
	ctx, err := s.ctx()
	if err != nil {
		return err
	}
	return drvStreamSynchronize(ctx, s.handle)
}

// Done reports whether all work on the stream is done, without blocking.
func (s *Stream) Done() (bool, error) {
	ctx, err := s.ctx()
	if err != nil {
		return false, err
	}
	return drvStreamQuery(ctx, s.handle)
}

// Destroy destroys a stream made by NewStream (work already enqueued still
// runs). Memory with memview's work pending on it is first handed to the
// legacy default stream, made to wait for that work, so that no export names
// a destroyed stream. It does nothing for a stream of StreamOf; a second call
// wraps ErrInvalidStream.
func (s *Stream) Destroy() error {
	if !s.owned {
		return nil
	}
	ctx, err := s.ctx()
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.destroyed {
		s.mu.Unlock()
		return fmt.Errorf("cuda: stream %#x destroyed twice: %w", s.handle, ErrInvalidStream)
	}
	moved := make([]*pending, 0, len(s.pending))
	for st := range s.pending {
		moved = append(moved, st)
	}
	s.mu.Unlock()
	var errs error
	for _, st := range moved {
		errs = errors.Join(errs, st.streamClosed(s))
	}
	s.mu.Lock()
	s.destroyed = true
	s.mu.Unlock()
	ownedStreams.CompareAndDelete(s.handle, s)
	return errors.Join(errs, drvStreamDestroy(ctx, s.handle))
}

// Event marks a point in a stream's work; other streams can wait for it
// without blocking the host. Destroy it when done.
type Event struct {
	handle uintptr
	device int
}

// Record creates an event and records it on s: it completes when the work
// enqueued on s so far completes.
func Record(s *Stream) (*Event, error) {
	ctx, err := s.ctx()
	if err != nil {
		return nil, err
	}
	h, err := drvEventCreate(ctx)
	if err != nil {
		return nil, err
	}
	if err := drvEventRecord(ctx, h, s.handle); err != nil {
		_ = drvEventDestroy(ctx, h)
		return nil, err
	}
	return &Event{handle: h, device: s.device}, nil
}

// WaitOn makes work enqueued on s from now on wait for e (cuStreamWaitEvent):
// the host does not block.
func (e *Event) WaitOn(s *Stream) error {
	ctx, err := s.ctx()
	if err != nil {
		return err
	}
	return drvStreamWaitEvent(ctx, s.handle, e.handle)
}

// Synchronize blocks the host until e completes.
func (e *Event) Synchronize() error {
	d, err := deviceFor(e.device)
	if err != nil {
		return err
	}
	return drvEventSynchronize(d.ctx, e.handle)
}

// Destroy releases the event.
func (e *Event) Destroy() error {
	d, err := deviceFor(e.device)
	if err != nil {
		return err
	}
	return drvEventDestroy(d.ctx, e.handle)
}

// Handle is the driver's handle (CUevent), for a consumer that waits on it
// itself (the Arrow C device interface's sync_event).
func (e *Event) Handle() uintptr { return e.handle }

// EventOf names an event made elsewhere (a producer's sync event) on device
// ordinal; memview never destroys it.
func EventOf(ordinal int, handle uintptr) *Event { return &Event{handle: handle, device: ordinal} }
