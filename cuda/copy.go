package cuda

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/memview/memview/memview"
)

// ThroughDriver reports whether memview's work on memory of device d goes
// through the driver: CUDA device memory and managed memory (which the driver
// moves efficiently). Pageable and pinned host memory are copied by the CPU
// between themselves.
func ThroughDriver(d memview.Device) bool {
	return d.Kind == memview.CUDA || d.Kind == memview.CUDAManaged
}

// Copy copies the elements of src into dst with NumPy's copyto rules (same
// dtype, else ErrType; dst writable, else ErrReadOnly; src broadcast to dst's
// shape, else ErrInvalid) where either array may be CUDA device, managed,
// pinned or host memory, with any strides.
//
// Work is enqueued on s (nil: the legacy default stream of the device
// involved). A copy that touches host memory waits for its own work before it
// returns, because host memory may be staged or read at once; a copy between
// device arrays does not block the host. Strided device arrays are copied by
// 2-D copies of whole rows, through a dense temporary where needed (an axis
// that runs backwards in one operand and forwards in the other, a broadcast
// source, or overlapping operands); the fallback of last resort goes through
// host memory.
func Copy(dst, src *memview.Array, s *Stream) error {
	if !dst.DType().SameLayout(src.DType()) {
		return fmt.Errorf("cuda: copy of %s into %s: %w", src.DType(), dst.DType(), memview.ErrType)
	}
	if dst.ReadOnly() {
		return fmt.Errorf("cuda: copy into a read-only array: %w", memview.ErrReadOnly)
	}
	src, err := src.BroadcastTo(dst.Shape())
	if err != nil {
		return err
	}
	defer src.Release()
	dd, sd := ThroughDriver(dst.Device()), ThroughDriver(src.Device())
	if s == nil {
		ordinal := dst.Device().ID
		if !dd {
			ordinal = src.Device().ID
		}
		s = StreamOf(ordinal, LegacyStream)
	}
	if !dd && !sd {
		// Host to host: wait for device work that may still write either.
		if dst.Device() != (memview.Device{}) || src.Device() != (memview.Device{}) {
			if err := s.Synchronize(); err != nil {
				return err
			}
		}
		return memview.CopyInto(dst, src)
	}
	if dst.Size() == 0 {
		return nil
	}
	ctx, err := s.ctx()
	if err != nil {
		return err
	}
	c := copier{ctx: ctx, s: s}
	switch {
	case dd && !sd:
		return c.toDevice(dst, src)
	case !dd && sd:
		return c.toHost(dst, src)
	default:
		return c.deviceToDevice(dst, src)
	}
}

// copier runs the copies of one Copy on one stream.
type copier struct {
	ctx uintptr
	s   *Stream
}

func (c copier) run(ops []copy2D, sync bool) error { return drvCopy(c.ctx, ops, c.s.handle, sync) }

// spanCopy copies the whole byte span of a dense array onto another dense array
// laid out the same way (same strides).
func spanCopy(dst, src *memview.Array) []copy2D {
	lo, hi := dst.Layout().Span()
	return []copy2D{{dst: addr(dst) + uintptr(lo), src: addr(src) + uintptr(lo), width: hi - lo, dstPitch: hi - lo, srcPitch: hi - lo, height: 1}}
}

// toDevice copies host src into device dst: through a host array dense like
// dst (unless src already is one), one transfer, and — when dst has gaps — a
// device temporary dense like dst and a device-side strided copy.
func (c copier) toDevice(dst, src *memview.Array) error {
	stage := src
	if !sameDense(src, dst) {
		h, err := newLike(nil, dst)
		if err != nil {
			return err
		}
		defer h.Release()
		if err := memview.CopyInto(h, src); err != nil {
			return err
		}
		stage = h
	}
	if isDense(dst.Shape(), dst.Strides(), dst.DType().Itemsize()) {
		return c.run(spanCopy(dst, stage), true)
	}
	t, err := c.deviceLike(dst)
	if err != nil {
		return err
	}
	defer t.Release()
	if err := c.run(spanCopy(t, stage), false); err != nil {
		return err
	}
	ops, ok := planArrays(dst, t)
	if !ok {
		return fmt.Errorf("cuda: internal error: no plan from a dense temporary: %w", memview.ErrInvalid)
	}
	return c.run(ops, true) // the temporary is freed on return
}

// toHost copies device src into host dst: the mirror of toDevice.
func (c copier) toHost(dst, src *memview.Array) error {
	from := src
	if !isDense(src.Shape(), src.Strides(), src.DType().Itemsize()) {
		t, err := c.denseCopy(src)
		if err != nil {
			return err
		}
		defer t.Release()
		from = t
	}
	if sameDense(dst, from) {
		return c.run(spanCopy(dst, from), true)
	}
	h, err := newLike(nil, from)
	if err != nil {
		return err
	}
	defer h.Release()
	if err := c.run(spanCopy(h, from), true); err != nil {
		return err
	}
	return memview.CopyInto(dst, h)
}

// deviceToDevice copies between device arrays without blocking the host when
// a plan of 2-D copies exists.
func (c copier) deviceToDevice(dst, src *memview.Array) error {
	if !overlaps(dst, src) {
		if ops, ok := planArrays(dst, src); ok {
			return c.run(ops, false)
		}
	}
	// Through a temporary dense like src: that copy always has a plan.
	t, err := c.denseCopy(src)
	if err != nil {
		return err
	}
	defer t.Release()
	if ops, ok := planArrays(dst, t); ok {
		return c.run(ops, true) // the temporary is freed on return
	}
	// Axes that run in opposite directions: no forward 2-D copy reverses them,
	// so go through the host (slow, but exact).
	h, err := newLike(nil, dst)
	if err != nil {
		return err
	}
	defer h.Release()
	if err := c.toHost(h, t); err != nil {
		return err
	}
	return c.toDevice(dst, h)
}

// denseCopy enqueues a copy of device array src into a new device array dense
// like it (a plan always exists for that pair). The caller releases it, after
// waiting for the stream when the copy must be finished first.
func (c copier) denseCopy(src *memview.Array) (*memview.Array, error) {
	t, err := c.deviceLike(src)
	if err != nil {
		return nil, err
	}
	ops, ok := planArrays(t, src)
	if !ok {
		err = fmt.Errorf("cuda: internal error: no plan into a dense temporary: %w", memview.ErrInvalid)
	} else {
		err = c.run(ops, false)
	}
	if err != nil {
		_ = t.Release()
		return nil, err
	}
	return t, nil
}

// deviceLike allocates a device array dense like a (same axis order and
// directions) on the stream's device.
func (c copier) deviceLike(a *memview.Array) (*memview.Array, error) {
	p, err := Pool(memview.Device{Kind: memview.CUDA, ID: c.s.device})
	if err != nil {
		return nil, err
	}
	return newLike(p, a)
}

// newLike allocates an array of a's shape and dtype from p (nil: the default
// host pool), dense like a.
func newLike(p *memview.Pool, a *memview.Array) (*memview.Array, error) {
	itemsize := a.DType().Itemsize()
	strides, offset, size := denseLike(a.Shape(), a.Strides(), itemsize)
	buf, err := memview.NewBuffer(p, size)
	if err != nil {
		return nil, err
	}
	defer buf.Release()
	return memview.NewArray(buf, a.DType(), a.Shape(), strides, offset, false)
}

// sameDense reports whether a is dense and has b's strides, so a span copy
// between them is an element-wise copy.
func sameDense(a, b *memview.Array) bool {
	return slices.Equal(a.Strides(), b.Strides()) && isDense(a.Shape(), a.Strides(), a.DType().Itemsize())
}

func planArrays(dst, src *memview.Array) ([]copy2D, bool) {
	return plan2D(operand{addr(dst), dst.Strides()}, operand{addr(src), src.Strides()}, dst.Shape(), dst.DType().Itemsize())
}

func addr(a *memview.Array) uintptr { return uintptr(a.Pointer()) }

// overlaps reports whether the byte spans of a and b intersect.
func overlaps(a, b *memview.Array) bool {
	if a.Size() == 0 || b.Size() == 0 {
		return false
	}
	alo, ahi := a.Layout().Span()
	blo, bhi := b.Layout().Span()
	pa, pb := addr(a), addr(b)
	return pa+uintptr(ahi) > pb+uintptr(blo) && pb+uintptr(bhi) > pa+uintptr(alo)
}

// Fill writes item (the bytes of one element) into every element of a, on any
// device, enqueued on s (nil: the legacy default stream). Dense device arrays
// are filled by the driver's memset (items of 1, 2 or 4 bytes, or all bytes
// equal, in one call; items of a multiple of 4 bytes one 4-byte word at a
// time); others through Copy from a broadcast host element.
func Fill(a *memview.Array, item []byte, s *Stream) error {
	itemsize := a.DType().Itemsize()
	if len(item) != itemsize {
		return fmt.Errorf("cuda: fill with %d bytes for %s items of %d bytes: %w", len(item), a.DType(), itemsize, memview.ErrInvalid)
	}
	if a.ReadOnly() {
		return fmt.Errorf("cuda: fill of a read-only array: %w", memview.ErrReadOnly)
	}
	if s == nil {
		s = StreamOf(a.Device().ID, LegacyStream)
	}
	if !ThroughDriver(a.Device()) {
		if a.Device() != (memview.Device{}) {
			if err := s.Synchronize(); err != nil {
				return err
			}
		}
		return a.FillBytes(item)
	}
	if a.Size() == 0 {
		return nil
	}
	uniform := bytes.Count(item, item[:1]) == itemsize
	if !isDense(a.Shape(), a.Strides(), itemsize) || (!uniform && itemsize%4 != 0 && itemsize != 2) {
		// Gaps, or an item the driver's memsets cannot repeat (a 3-byte record):
		// copy from one host element, broadcast.
		one, err := memview.Empty(nil, nil, a.DType(), 'C')
		if err != nil {
			return err
		}
		defer one.Release()
		if err := one.FillBytes(item); err != nil {
			return err
		}
		return Copy(a, one, s)
	}
	ctx, err := s.ctx()
	if err != nil {
		return err
	}
	lo, _ := a.Layout().Span()
	base, n := addr(a)+uintptr(lo), a.Size()
	switch {
	case uniform:
		return drvMemset(ctx, 1, base, uint32(item[0]), n*itemsize, s.handle)
	case itemsize == 2:
		return drvMemset(ctx, 2, base, uint32(binary.NativeEndian.Uint16(item)), n, s.handle)
	case itemsize == 4:
		return drvMemset(ctx, 4, base, binary.NativeEndian.Uint32(item), n, s.handle)
	}
	// A multiple of 4 bytes: each 4-byte word of the item down a column of pitch itemsize.
	for w := 0; w < itemsize; w += 4 {
		if err := drvMemset2D32(ctx, base+uintptr(w), itemsize, binary.NativeEndian.Uint32(item[w:]), n, s.handle); err != nil {
			return err
		}
	}
	return nil
}
