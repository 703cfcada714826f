package memview

import (
	"errors"
	"fmt"
	"log"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Exporter is the producer side of memview, after Ruby's MemoryView entry
// (rb_memory_view_entry_t: get_func, release_func, available_p_func): any Go
// type that owns memory implements it to hand that memory to consumers — Go
// code through Export and NewView, Python through pyext — without a copy.
//
// A consumer does not call View and ReleaseView itself; it calls Export,
// which checks Available, calls View, verifies the result and calls
// ReleaseView exactly once, when the last reference to the exported array
// (and to every view made from it) is released.
//
// The memory rule: the bytes behind an array View returns must stay valid and
// unmoved until ReleaseView is called for it, because consumers (C and Python
// among them) hold its address. Memory from memview (Empty, Zeros, NewBuffer)
// is off the Go heap or pinned, and an Array made by View holds a reference
// on its Buffer, so returning a view of an Array the exporter owns keeps that
// rule by itself. Never wrap an ordinary Go slice with WrapExternal to export
// it: the Go heap may be collected once no Go pointer refers to it, and cgo
// forbids C from holding unpinned Go pointers.
//
// An Exporter must be safe for concurrent use if its arrays are exported from
// several goroutines; ReleaseView may be called from any goroutine (the one
// that drops the last reference).
type Exporter interface {
	// Available reports whether a view can be exported now (Ruby's
	// available_p_func); false makes Export refuse without calling View.
	Available() bool

	// View returns a new Array over the exporter's memory that satisfies req
	// exactly (Ruby's get_func, CPython's bf_getbuffer). It never copies: a
	// request the memory's layout cannot serve is refused with an error
	// wrapping ErrReadOnly (a writable view of read-only memory) or
	// ErrInvalid (a layout the request excludes); Request.Check says which.
	// The caller owns the returned Array until it hands it back to
	// ReleaseView; it must be a fresh Array (a.Index() makes one), not one
	// the exporter keeps using itself.
	View(req Request) (*Array, error)

	// ReleaseView takes back an Array that View returned (Ruby's
	// release_func, CPython's bf_releasebuffer) and releases it (a.Release)
	// along with anything the exporter made for it. It is called exactly
	// once per Array View returned; an error reports an exporter bug, such
	// as an Array it did not hand out.
	ReleaseView(a *Array) error
}

// Request says what a consumer will rely on, modelled on the PEP 3118
// request flags of PyObject_GetBuffer; each constant has the value of the
// PyBUF_* flag it mirrors, so pyext passes the flags of a getbuffer call
// through as memview.Request(flags).
//
// An exported Array always carries its full description (dtype, shape,
// strides, offset); a Request restricts which layouts are acceptable, as
// CPython's reference exporter _testbuffer.ndarray does:
//   - without ReqStrides the consumer assumes C order, so the array must be
//     C-contiguous;
//   - without ReqND the consumer sees a flat run of bytes (ndim 1, no
//     shape), so ReqFormat is a contradiction there and is refused;
//   - ReqCContiguous, ReqFContiguous and ReqAnyContiguous ask for that
//     contiguity (dims of size 0 or 1 make a layout both C and F);
//   - ReqWritable asks for a writable array; without it a writable array
//     may still be handed out;
//   - ReqIndirect is always served: memview never exports suboffsets.
//
// Bits other than these are ignored, as CPython's exporters ignore them.
type Request uint32

// Request flags and the PyBUF_* flag each mirrors (same value). The
// composite flags contain the flags they imply, as in CPython: ReqStrides
// includes ReqND, and each contiguity flag includes ReqStrides.
const (
	ReqSimple        Request = 0                   // PyBUF_SIMPLE: a C-contiguous run of bytes
	ReqWritable      Request = 0x0001              // PyBUF_WRITABLE: the array must be writable
	ReqFormat        Request = 0x0004              // PyBUF_FORMAT: the consumer reads the element format
	ReqND            Request = 0x0008              // PyBUF_ND: the consumer reads the shape (C order assumed)
	ReqStrides       Request = 0x0010 | ReqND      // PyBUF_STRIDES: the consumer reads the strides
	ReqCContiguous   Request = 0x0020 | ReqStrides // PyBUF_C_CONTIGUOUS: must be C-contiguous
	ReqFContiguous   Request = 0x0040 | ReqStrides // PyBUF_F_CONTIGUOUS: must be Fortran-contiguous
	ReqAnyContiguous Request = 0x0080 | ReqStrides // PyBUF_ANY_CONTIGUOUS: must be C- or Fortran-contiguous
	ReqIndirect      Request = 0x0100 | ReqStrides // PyBUF_INDIRECT: suboffsets allowed (memview has none)

	ReqContig    = ReqND | ReqWritable                   // PyBUF_CONTIG
	ReqContigRO  = ReqND                                 // PyBUF_CONTIG_RO
	ReqStrided   = ReqStrides | ReqWritable              // PyBUF_STRIDED
	ReqStridedRO = ReqStrides                            // PyBUF_STRIDED_RO
	ReqRecords   = ReqStrides | ReqWritable | ReqFormat  // PyBUF_RECORDS
	ReqRecordsRO = ReqStrides | ReqFormat                // PyBUF_RECORDS_RO
	ReqFull      = ReqIndirect | ReqWritable | ReqFormat // PyBUF_FULL
	ReqFullRO    = ReqIndirect | ReqFormat               // PyBUF_FULL_RO
)

// Has reports whether r includes every bit of f.
func (r Request) Has(f Request) bool { return r&f == f }

// requestNames names the requests that have a constant of their own (for
// values with two names, such as ReqStrides and ReqStridedRO, the first).
var requestNames = map[Request]string{
	ReqSimple: "ReqSimple", ReqWritable: "ReqWritable", ReqFormat: "ReqFormat",
	ReqND: "ReqND", ReqStrides: "ReqStrides", ReqCContiguous: "ReqCContiguous",
	ReqFContiguous: "ReqFContiguous", ReqAnyContiguous: "ReqAnyContiguous",
	ReqIndirect: "ReqIndirect", ReqContig: "ReqContig", ReqStrided: "ReqStrided",
	ReqRecords: "ReqRecords", ReqRecordsRO: "ReqRecordsRO", ReqFull: "ReqFull",
	ReqFullRO: "ReqFullRO",
}

// String returns the name of r's constant, such as "ReqRecords", or, for
// other combinations, the shape flags it holds followed by ReqWritable and
// ReqFormat, such as "ReqCContiguous|ReqWritable"; unknown bits are shown
// in hex.
func (r Request) String() string {
	if name, ok := requestNames[r]; ok {
		return name
	}
	var parts []string
	left := r
	add := func(f Request) {
		parts = append(parts, requestNames[f])
		left &^= f
	}
	for _, f := range []Request{ReqIndirect, ReqCContiguous, ReqFContiguous, ReqAnyContiguous} {
		if r.Has(f) {
			add(f)
		}
	}
	for _, f := range []Request{ReqStrides, ReqND, ReqWritable, ReqFormat} {
		if r.Has(f) && left&f != 0 {
			add(f)
		}
	}
	if left != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint32(left)))
	}
	return strings.Join(parts, "|")
}

// Check reports whether a satisfies r, with the checks and in the order of
// CPython's reference exporter (_testbuffer.ndarray): a writable request on
// a read-only array wraps ErrReadOnly; a contiguity the layout lacks, a
// request without ReqStrides on a non-C-contiguous array, and ReqFormat
// without ReqND wrap ErrInvalid; a released array wraps ErrReleased.
// Exporters call it in View to refuse what they cannot serve exactly.
func (r Request) Check(a *Array) error {
	if a == nil {
		return fmt.Errorf("memview: request %v: no array: %w", r, ErrInvalid)
	}
	if err := a.alive(); err != nil {
		return err
	}
	// PyBUF_WRITABLE: provide a writable buffer or fail.
	if r.Has(ReqWritable) && a.ReadOnly() {
		return fmt.Errorf("memview: request %v: the array is read-only: %w", r, ErrReadOnly)
	}
	l := &a.layout
	c, f := l.CContiguous(), l.FContiguous()
	switch {
	case r.Has(ReqCContiguous) && !c:
		return fmt.Errorf("memview: request %v: the array (shape %s, strides %s) is not C-contiguous: %w", r, tuple(l.Shape), tuple(l.Strides), ErrInvalid)
	case r.Has(ReqFContiguous) && !f:
		return fmt.Errorf("memview: request %v: the array (shape %s, strides %s) is not Fortran-contiguous: %w", r, tuple(l.Shape), tuple(l.Strides), ErrInvalid)
	case r.Has(ReqAnyContiguous) && !c && !f:
		return fmt.Errorf("memview: request %v: the array (shape %s, strides %s) is not contiguous: %w", r, tuple(l.Shape), tuple(l.Strides), ErrInvalid)
	// Without strides the consumer assumes C order.
	case !r.Has(ReqStrides) && !c:
		return fmt.Errorf("memview: request %v has no strides, and the array (shape %s, strides %s) is not C-contiguous: %w", r, tuple(l.Shape), tuple(l.Strides), ErrInvalid)
	// Without a shape the consumer sees unsigned bytes: a format contradicts it.
	case !r.Has(ReqND) && r.Has(ReqFormat):
		return fmt.Errorf("memview: request %v: cannot cast to unsigned bytes if the format flag is present: %w", r, ErrInvalid)
	}
	return nil
}

// Export is the consumer entry of the Exporter protocol: it returns an array
// over e's memory that satisfies req, without a copy.
//
// It refuses when e is not Available (ErrInvalid), passes on View's refusal
// (wrapped, and given ErrInvalid if it wraps no package sentinel), and
// verifies View's array with req.Check, so a careless exporter cannot hand
// out a layout the consumer did not ask for; an array that fails is given
// back to ReleaseView at once.
//
// The array Export returns is a new Array over a Buffer that wraps exactly
// the bytes View's array reaches (Buffer().Bytes() shows no more), with the
// same dtype, shape, strides, device and read-only flag, and the same
// Pointer(). Views made from it (Index, Transpose, Reshape, AsReadOnly,
// another Export through an ArrayExporter) share that Buffer. When the last
// of them is released, e.ReleaseView is called with View's array, exactly
// once, from the goroutine that released it; its error goes to the handler
// set with SetReleaseErrorHandler, since Array.Release cannot return it.
func Export(e Exporter, req Request) (*Array, error) {
	if e == nil {
		return nil, fmt.Errorf("memview: export from a nil Exporter: %w", ErrInvalid)
	}
	if !e.Available() {
		return nil, fmt.Errorf("memview: export of %T: the exporter cannot export a view now (Available is false): %w", e, ErrInvalid)
	}
	src, err := e.View(req)
	if err != nil {
		if !wrapsSentinel(err) {
			return nil, fmt.Errorf("memview: export of %T for %v: %w: %w", e, req, err, ErrInvalid)
		}
		return nil, fmt.Errorf("memview: export of %T: %w", e, err)
	}
	if src == nil {
		return nil, fmt.Errorf("memview: export of %T for %v: View returned neither an array nor an error: %w", e, req, ErrInvalid)
	}
	if err := req.Check(src); err != nil {
		err = fmt.Errorf("memview: export of %T: View broke the request: %w", e, err)
		if rerr := e.ReleaseView(src); rerr != nil {
			err = errors.Join(err, fmt.Errorf("memview: release of the refused view of %T: %w", e, rerr))
		}
		return nil, err
	}
	return exportArray(e, src)
}

// exportArray makes the consumer's array over the bytes src reaches, on a
// Buffer whose release function gives src back to e.
func exportArray(e Exporter, src *Array) (*Array, error) {
	l := src.layout
	lo, hi := l.Span()
	// src's layout was validated against its buffer, so [lo, hi) relative to
	// element 0 lies inside it (for an empty array lo == hi == 0).
	p := unsafe.Add(src.Pointer(), lo)
	w := WrapExternal(p, hi-lo, src.ReadOnly(), func() {
		if err := e.ReleaseView(src); err != nil {
			reportReleaseError(fmt.Errorf("memview: release of a view of %T: %w", e, err))
		}
	})
	w.device = src.Device()
	out, err := NewArray(w, src.dt, l.Shape, l.Strides, -lo, src.ReadOnly())
	// Drop the wrapper's first reference: out holds its own. Without out this
	// is the last one, and gives src back to e.
	if rerr := w.Release(); rerr != nil && err == nil {
		// Not expected: w has no pool to fail and out holds a reference.
		_ = out.Release()
		err = rerr
	}
	if err != nil {
		return nil, fmt.Errorf("memview: export of %T: %w", e, err)
	}
	return out, nil
}

// sentinels are the package's sentinel errors (errors.go).
var sentinels = []error{ErrInvalid, ErrType, ErrIndex, ErrReadOnly, ErrExported, ErrReleased, ErrNoMemory}

// wrapsSentinel reports whether err wraps one of the package's sentinels.
func wrapsSentinel(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// releaseErrorHandler is the function SetReleaseErrorHandler set, or nil for
// the default.
var releaseErrorHandler atomic.Pointer[func(error)]

// SetReleaseErrorHandler sets the function that receives the errors of the
// ReleaseView calls Export arranges. Those calls happen inside the
// Array.Release that drops the last reference to an exported array, which
// cannot return them. It returns the previous handler; nil restores the
// default, which writes the error to the standard logger. The handler may be
// called from any goroutine, and must not panic.
func SetReleaseErrorHandler(h func(error)) (previous func(error)) {
	var old *func(error)
	if h == nil {
		old = releaseErrorHandler.Swap(nil)
	} else {
		old = releaseErrorHandler.Swap(&h)
	}
	if old == nil {
		return nil
	}
	return *old
}

// reportReleaseError hands err to the release error handler.
func reportReleaseError(err error) {
	if h := releaseErrorHandler.Load(); h != nil {
		(*h)(err)
		return
	}
	log.Print(err)
}

var _ Exporter = (*ArrayExporter)(nil)

// ArrayExporter is a ready-made Exporter for a type that owns an Array: it
// hands out views of that array, counts the live ones, and refuses to Close
// while any is live. Embed one, or return one, to make a type exportable.
//
// It holds its own view of the array, so the caller of NewArrayExporter
// still releases its array as usual. An ArrayExporter is safe for concurrent
// use.
type ArrayExporter struct {
	mu     sync.Mutex
	arr    *Array
	live   map[*Array]struct{}
	closed bool
}

// NewArrayExporter returns an exporter of a's elements with a's layout and
// read-only flag. It takes its own reference (a view of a); a released a
// wraps ErrReleased.
func NewArrayExporter(a *Array) (*ArrayExporter, error) {
	if a == nil {
		return nil, fmt.Errorf("memview: array exporter of a nil array: %w", ErrInvalid)
	}
	own, err := a.Index()
	if err != nil {
		return nil, fmt.Errorf("memview: array exporter: %w", err)
	}
	return &ArrayExporter{arr: own, live: make(map[*Array]struct{})}, nil
}

// Available reports whether the exporter is not closed.
func (x *ArrayExporter) Available() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return !x.closed
}

// View returns a new view of the array if it satisfies req (Request.Check);
// otherwise it refuses with Check's error. A closed exporter wraps
// ErrReleased.
func (x *ArrayExporter) View(req Request) (*Array, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil, fmt.Errorf("memview: view of a closed array exporter: %w", ErrReleased)
	}
	if err := req.Check(x.arr); err != nil {
		return nil, err
	}
	v, err := x.arr.Index()
	if err != nil {
		return nil, err
	}
	x.live[v] = struct{}{}
	return v, nil
}

// ReleaseView releases a view that View returned. An array that is not a
// live view of this exporter (never handed out, or given back already)
// wraps ErrInvalid and is left alone.
func (x *ArrayExporter) ReleaseView(a *Array) error {
	x.mu.Lock()
	_, ok := x.live[a]
	delete(x.live, a)
	x.mu.Unlock()
	if !ok {
		return fmt.Errorf("memview: array exporter: release of an array it did not hand out, or released already: %w", ErrInvalid)
	}
	return a.Release()
}

// Views returns the number of live views: handed out by View and not yet
// given back to ReleaseView.
func (x *ArrayExporter) Views() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.live)
}

// Array returns the exporter's own view of the array, for its owner to read
// and write (it must not release it: Close does). It stays valid until
// Close.
func (x *ArrayExporter) Array() *Array { return x.arr }

// Close releases the exporter's reference and makes it unavailable. With
// live views it refuses with ErrExported and stays open (release the
// consumers' arrays, then Close again); a second Close wraps ErrReleased.
func (x *ArrayExporter) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return fmt.Errorf("memview: close of a closed array exporter: %w", ErrReleased)
	}
	if n := len(x.live); n > 0 {
		return fmt.Errorf("memview: close of an array exporter with %d live views: %w", n, ErrExported)
	}
	if err := x.arr.Release(); err != nil {
		return fmt.Errorf("memview: close of an array exporter: %w", err)
	}
	x.closed = true
	return nil
}
