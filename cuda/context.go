package cuda

import (
	"fmt"
	"sync"
)

// device is the state memview keeps per CUDA device: its primary context (the
// one CuPy, Numba and PyTorch use, so memory and streams are shared with
// them), a private non-blocking stream for zero-filling new memory, and
// memview's kernels, loaded into the context when first needed.
type device struct {
	ordinal int
	ctx     uintptr
	zero    uintptr

	kernelsOnce sync.Once
	kernelsErr  error
	fns         [numKernels]uintptr
}

var (
	devicesMu sync.Mutex
	devices   = map[int]*device{}
)

// deviceFor returns the state of device ordinal, retaining its primary context
// the first time. The context is kept for the life of the process (released
// contexts would free every allocation made in them).
func deviceFor(ordinal int) (*device, error) {
	n, err := DeviceCount()
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("cuda: device %d does not exist (%d device(s)): %w", ordinal, n, ErrInvalidDevice)
	}
	devicesMu.Lock()
	defer devicesMu.Unlock()
	if d, ok := devices[ordinal]; ok {
		return d, nil
	}
	ctx, err := drvPrimaryCtx(ordinal)
	if err != nil {
		return nil, err
	}
	zs, err := drvStreamCreate(ctx, streamNonBlocking)
	if err != nil {
		return nil, fmt.Errorf("cuda: device %d: %w", ordinal, err)
	}
	d := &device{ordinal: ordinal, ctx: ctx, zero: zs}
	devices[ordinal] = d
	return d, nil
}

// kernel returns the function of k in this device's context, loading memview's
// module (kernels.ptx, compiled by the driver for this GPU) the first time.
// The module stays loaded for the life of the process, like the context.
func (d *device) kernel(k kernel) (uintptr, error) {
	d.kernelsOnce.Do(func() {
		_, d.fns, d.kernelsErr = drvModuleLoad(d.ctx)
		if d.kernelsErr != nil {
			d.kernelsErr = fmt.Errorf("cuda: device %d: %w", d.ordinal, d.kernelsErr)
		}
	})
	return d.fns[k], d.kernelsErr
}
