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

// hostVisible reports whether the CPU can reach memory of device d: a view of
// it may be read by the host at any moment, so memview's work on it is
// finished before the call that enqueued it returns.
func hostVisible(d memview.Device) bool { return d.Kind != memview.CUDA }

// Copy copies the elements of src into dst with NumPy's copyto rules (same
// dtype, else ErrType; dst writable, else ErrReadOnly; src broadcast to dst's
// shape, else ErrInvalid) where either array may be CUDA device, managed,
// pinned or host memory, with any strides.
//
// Work is enqueued on s (nil: the legacy default stream of the device
// involved), after the work memview left pending on either array (on the
// device, through an event). Copies between device arrays are left pending on
// s, and both arrays then report s (see PendingStream); copies that touch
// memory the CPU can reach (host, pinned or managed) are finished when Copy
// returns. Strided device arrays are copied by memview's kernels
// (kernels.ptx): any strides, reversed axes, broadcast sources; dense spans
// and transfers to and from host memory by the driver's copy engines.
// Overlapping device operands go through a dense device temporary; nothing
// between device arrays goes through host memory.
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
	if !dd && !sd {
		// Host to host: wait for device work that may still use either.
		if err := WaitHost(dst, src); err != nil {
			return err
		}
		return memview.CopyInto(dst, src)
	}
	side := dst.Device().ID
	if !dd {
		side = src.Device().ID
	}
	if s == nil {
		s = StreamOf(side, LegacyStream)
	} else if s.device != side {
		return fmt.Errorf("cuda: copy on a stream of device %d for memory of device %d: %w", s.device, side, memview.ErrInvalid)
	}
	if dst.Size() == 0 {
		return nil
	}
	c, err := newCopier(s)
	if err != nil {
		return err
	}
	sts := states(dst, src)
	for _, st := range sts {
		if err := st.waitOn(s); err != nil {
			return err
		}
	}
	switch {
	case dd && !sd:
		err = c.toDevice(dst, src)
	case !dd && sd:
		err = c.toHost(dst, src)
	case dst.Device().ID != src.Device().ID:
		err = c.acrossDevices(dst, src)
	default:
		err = c.deviceToDevice(dst, src)
	}
	if err != nil {
		return err
	}
	return c.finish(hostVisible(dst.Device()) || hostVisible(src.Device()), sts)
}

// copier runs the work of one Copy or Fill on one stream.
type copier struct {
	dev    *device
	s      *Stream
	ctx    uintptr
	synced bool // nothing enqueued since the stream was last synchronised
}

func newCopier(s *Stream) (*copier, error) {
	ctx, err := s.ctx()
	if err != nil {
		return nil, err
	}
	d, err := deviceFor(s.device)
	if err != nil {
		return nil, err
	}
	return &copier{dev: d, s: s, ctx: ctx}, nil
}

// run enqueues driver copies.
func (c *copier) run(ops []copy2D) error {
	c.synced = false
	return drvCopy(c.ctx, ops, c.s.handle)
}

// launch enqueues a kernel.
func (c *copier) launch(l *launch) error {
	fn, err := c.dev.kernel(l.k)
	if err != nil {
		return err
	}
	c.synced = false
	return drvLaunch(c.ctx, fn, l, c.s.handle)
}

// sync waits for everything enqueued on the stream (needed before host memory
// or a temporary the work uses is touched or freed).
func (c *copier) sync() error {
	if err := drvStreamSynchronize(c.ctx, c.s.handle); err != nil {
		return err
	}
	c.synced = true
	return nil
}

// finish records the outcome on the operands' memory: nothing pending when the
// work is finished (now, if wait is set), else the work pending on the stream.
func (c *copier) finish(wait bool, sts []*pending) error {
	if wait && !c.synced {
		if err := c.sync(); err != nil {
			return err
		}
	}
	for _, st := range sts {
		if c.synced {
			st.done(c.s)
		} else if err := st.left(c.s); err != nil {
			return err
		}
	}
	return nil
}

// kernelCopy enqueues dst[i] = src[i] (device memory of this stream's device,
// not overlapping) as one kernel launch.
func (c *copier) kernelCopy(dst, src *memview.Array) error {
	l, n, ok := planCopyKernel(operandOf(dst), operandOf(src), dst.Shape(), dst.DType().Itemsize())
	if !ok {
		return fmt.Errorf("cuda: a copy of shape %v with strides %v and %v has too many axes for memview's kernels: %w",
			dst.Shape(), dst.Strides(), src.Strides(), memview.ErrInvalid)
	}
	if n == 0 {
		return nil
	}
	return c.launch(&l)
}

// spanCopy copies the whole byte span of a dense array onto another dense array
// laid out the same way (same strides): one contiguous driver copy.
func spanCopy(dst, src *memview.Array) []copy2D {
	lo, hi := dst.Layout().Span()
	return []copy2D{{dst: addr(dst) + uintptr(lo), src: addr(src) + uintptr(lo), width: hi - lo, dstPitch: hi - lo, srcPitch: hi - lo, height: 1}}
}

// hostStage returns src itself when it is dense with like's strides, else a
// new host array dense like like holding src's elements (the CPU copies).
func hostStage(src, like *memview.Array) (*memview.Array, bool, error) {
	if sameDense(src, like) {
		return src, false, nil
	}
	h, err := newLike(nil, like)
	if err != nil {
		return nil, false, err
	}
	if err := memview.CopyInto(h, src); err != nil {
		_ = h.Release()
		return nil, false, err
	}
	return h, true, nil
}

// toDevice copies host src into device dst. Where a few driver copies of long
// rows do it (host-to-device 2-D copies accept any pitch), they move the
// elements directly. Otherwise src is staged on the host dense like dst
// (unless it is already) and moved by one transfer when dst is dense, else by
// a transfer into a device temporary dense like dst and a kernel.
func (c *copier) toDevice(dst, src *memview.Array) error {
	if err := WaitHost(src); err != nil {
		return err
	}
	if ops, ok := planArrays(dst, src); ok && wideRows(ops) {
		if err := c.run(ops); err != nil {
			return err
		}
		return c.sync() // the host memory must outlive the transfer
	}
	stage, made, err := hostStage(src, dst)
	if err != nil {
		return err
	}
	if made {
		defer stage.Release()
	}
	if isDense(dst.Shape(), dst.Strides(), dst.DType().Itemsize()) {
		if err := c.run(spanCopy(dst, stage)); err != nil {
			return err
		}
		return c.sync()
	}
	t, err := c.deviceLike(dst)
	if err != nil {
		return err
	}
	defer t.Release()
	if err := c.run(spanCopy(t, stage)); err != nil {
		return err
	}
	if err := c.kernelCopy(dst, t); err != nil {
		return err
	}
	return c.sync() // before the stage and the temporary go
}

// toHost copies device src into host dst: the mirror of toDevice.
func (c *copier) toHost(dst, src *memview.Array) error {
	if err := WaitHost(dst); err != nil {
		return err
	}
	if ops, ok := planArrays(dst, src); ok && wideRows(ops) {
		if err := c.run(ops); err != nil {
			return err
		}
		return c.sync()
	}
	itemsize := src.DType().Itemsize()
	from := src
	if !isDense(src.Shape(), src.Strides(), itemsize) {
		t, err := c.deviceLike(src)
		if err != nil {
			return err
		}
		defer t.Release()
		if err := c.kernelCopy(t, src); err != nil {
			return err
		}
		from = t
	}
	if sameDense(dst, from) {
		if err := c.run(spanCopy(dst, from)); err != nil {
			return err
		}
		return c.sync()
	}
	h, err := newLike(nil, from)
	if err != nil {
		return err
	}
	defer h.Release()
	if err := c.run(spanCopy(h, from)); err != nil {
		return err
	}
	if err := c.sync(); err != nil {
		return err
	}
	return memview.CopyInto(dst, h)
}

// deviceToDevice copies between arrays of one device without blocking the
// host: a dense pair laid out alike is one driver copy, anything else one
// kernel. Overlapping operands go through a dense temporary (two kernels),
// and then the copy waits, so that the temporary can go.
func (c *copier) deviceToDevice(dst, src *memview.Array) error {
	if !overlaps(dst, src) {
		if sameDense(dst, src) {
			return c.run(spanCopy(dst, src))
		}
		return c.kernelCopy(dst, src)
	}
	t, err := c.deviceLike(src)
	if err != nil {
		return err
	}
	defer t.Release()
	if err := c.kernelCopy(t, src); err != nil {
		return err
	}
	if err := c.kernelCopy(dst, t); err != nil {
		return err
	}
	return c.sync()
}

// acrossDevices copies between arrays of two devices: a kernel makes src dense
// on its own device (on that device's legacy default stream, waited for), one
// driver copy moves the bytes between the devices, and a kernel on dst's
// device lays them out as dst. Kernels touch only memory of their own device,
// so no peer access is needed.
func (c *copier) acrossDevices(dst, src *memview.Array) error {
	from := src
	if !isDense(src.Shape(), src.Strides(), src.DType().Itemsize()) {
		sc, err := newCopier(StreamOf(src.Device().ID, LegacyStream))
		if err != nil {
			return err
		}
		if err := stateOf(src.Buffer()).waitOn(sc.s); err != nil {
			return err
		}
		t, err := sc.deviceLike(src)
		if err != nil {
			return err
		}
		defer t.Release()
		if err := sc.kernelCopy(t, src); err != nil {
			return err
		}
		if err := sc.sync(); err != nil {
			return err
		}
		from = t
	}
	to := dst
	if !sameDense(dst, from) {
		t, err := c.deviceLike(from)
		if err != nil {
			return err
		}
		defer t.Release()
		to = t
	}
	if err := c.run(spanCopy(to, from)); err != nil {
		return err
	}
	if to != dst {
		if err := c.kernelCopy(dst, to); err != nil {
			return err
		}
	}
	return c.sync()
}

// deviceLike allocates a device array dense like a (same axis order and
// directions) on the stream's device.
func (c *copier) deviceLike(a *memview.Array) (*memview.Array, error) {
	p, err := Pool(memview.Device{Kind: memview.CUDA, ID: c.s.device})
	if err != nil {
		return nil, err
	}
	return newLike(p, a)
}

// wideRows reports whether a plan of 2-D copies is a few copies of long rows,
// which the copy engines move at full speed (short rows are many tiny
// transfers: a kernel does better).
func wideRows(ops []copy2D) bool {
	if len(ops) > 8 {
		return false
	}
	for _, o := range ops {
		if o.width < 512 && o.height > 1 {
			return false
		}
	}
	return true
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
	return memview.NewArray(buf, a.DType().Normal(), a.Shape(), strides, offset, false)
}

// sameDense reports whether a is dense and has b's strides, so a span copy
// between them is an element-wise copy.
func sameDense(a, b *memview.Array) bool {
	return slices.Equal(a.Strides(), b.Strides()) && isDense(a.Shape(), a.Strides(), a.DType().Itemsize())
}

func planArrays(dst, src *memview.Array) ([]copy2D, bool) {
	return plan2D(operandOf(dst), operandOf(src), dst.Shape(), dst.DType().Itemsize())
}

func operandOf(a *memview.Array) operand { return operand{addr(a), a.Strides()} }

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
// device, enqueued on s (nil: the legacy default stream) after the work
// pending on a. Dense device arrays whose item the driver's memsets can
// repeat (all bytes equal, or 2- or 4-byte items at aligned addresses) are
// filled by a memset; anything else by memview's fill kernels. As with Copy,
// device memory is left with the work pending on s; managed memory is filled
// before Fill returns; host and pinned memory are filled by the CPU.
func Fill(a *memview.Array, item []byte, s *Stream) error {
	itemsize := a.DType().Itemsize()
	if len(item) != itemsize {
		return fmt.Errorf("cuda: fill with %d bytes for %s items of %d bytes: %w", len(item), a.DType(), itemsize, memview.ErrInvalid)
	}
	if a.ReadOnly() {
		return fmt.Errorf("cuda: fill of a read-only array: %w", memview.ErrReadOnly)
	}
	if !ThroughDriver(a.Device()) {
		if err := WaitHost(a); err != nil {
			return err
		}
		return a.FillBytes(item)
	}
	if s == nil {
		s = StreamOf(a.Device().ID, LegacyStream)
	} else if s.device != a.Device().ID {
		return fmt.Errorf("cuda: fill on a stream of device %d for memory of device %d: %w", s.device, a.Device().ID, memview.ErrInvalid)
	}
	if a.Size() == 0 {
		return nil
	}
	c, err := newCopier(s)
	if err != nil {
		return err
	}
	sts := states(a)
	if err := sts[0].waitOn(s); err != nil {
		return err
	}
	if err := c.fill(a, item); err != nil {
		return err
	}
	return c.finish(hostVisible(a.Device()), sts)
}

func (c *copier) fill(a *memview.Array, item []byte) error {
	itemsize := len(item)
	lo, _ := a.Layout().Span()
	base, n := addr(a)+uintptr(lo), a.Size()
	if isDense(a.Shape(), a.Strides(), itemsize) {
		c.synced = false
		switch {
		case bytes.Count(item, item[:1]) == itemsize:
			return drvMemset(c.ctx, 1, base, uint32(item[0]), n*itemsize, c.s.handle)
		case itemsize == 2 && base%2 == 0:
			return drvMemset(c.ctx, 2, base, uint32(binary.NativeEndian.Uint16(item)), n, c.s.handle)
		case itemsize == 4 && base%4 == 0:
			return drvMemset(c.ctx, 4, base, binary.NativeEndian.Uint32(item), n, c.s.handle)
		}
	}
	l, k, ok := planFillKernel(operandOf(a), a.Shape(), item)
	if ok {
		if k == 0 {
			return nil
		}
		return c.launch(&l)
	}
	// An item wider than a kernel's argument block carries: copy from one
	// host element, broadcast (staged on the host, then a transfer and a kernel).
	one, err := memview.Empty(nil, nil, a.DType(), 'C')
	if err != nil {
		return err
	}
	defer one.Release()
	if err := one.FillBytes(item); err != nil {
		return err
	}
	b, err := one.BroadcastTo(a.Shape())
	if err != nil {
		return err
	}
	defer b.Release()
	return c.toDevice(a, b)
}
