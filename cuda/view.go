package cuda

import (
	"errors"
	"fmt"

	"github.com/memview/memview/memview"
)

// ViewOrCopy returns b's bytes as memory of dev (Arrow's Buffer::ViewOrCopy):
// a view when dev can address b's memory without a copy
// (memview.Buffer.ViewOn: pinned or managed memory seen from the host or a
// CUDA device, or memory already on dev), else a copy into a new buffer from
// p (nil: the process-wide pool of dev), made on stream s (nil: the legacy
// default stream of the device involved) and finished before it returns when
// host memory is involved. The result holds one reference for the caller.
func ViewOrCopy(b *memview.Buffer, dev memview.Device, p *memview.Pool, s *Stream) (*memview.Buffer, error) {
	v, err := b.ViewOn(dev)
	if err == nil || !errors.Is(err, memview.ErrInvalid) {
		return v, err
	}
	return CopyBuffer(b, dev, p, s)
}

// CopyBuffer copies b's bytes into a new buffer on dev from p (nil: the
// process-wide pool of dev; a pool on another device wraps ErrInvalid), on
// stream s as Copy does.
func CopyBuffer(b *memview.Buffer, dev memview.Device, p *memview.Pool, s *Stream) (*memview.Buffer, error) {
	if p == nil {
		var err error
		if p, err = poolOn(dev); err != nil {
			return nil, err
		}
	}
	if p.Device() != dev {
		return nil, fmt.Errorf("cuda: copy to %s from a pool on %s: %w", dev, p.Device(), memview.ErrInvalid)
	}
	out, err := memview.NewBuffer(p, b.Len())
	if err != nil {
		return nil, err
	}
	if err := copyBytes(out, b, s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}

// poolOn is the process-wide pool of dev: the default pool for the CPU.
func poolOn(dev memview.Device) (*memview.Pool, error) {
	if dev == (memview.Device{}) {
		return memview.DefaultPool(), nil
	}
	return Pool(dev)
}

// copyBytes copies all of src's bytes into dst (of the same size) with Copy,
// as 1-D uint8 arrays.
func copyBytes(dst, src *memview.Buffer, s *Stream) error {
	n := []int{src.Len()}
	d, err := memview.NewArray(dst, memview.Uint8, n, nil, 0, false)
	if err != nil {
		return err
	}
	defer d.Release()
	a, err := memview.NewArray(src, memview.Uint8, n, nil, 0, true)
	if err != nil {
		return err
	}
	defer a.Release()
	return Copy(d, a, s)
}
