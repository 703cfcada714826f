package cuda

import (
	"fmt"
	"sync"
)

// device is the state memview keeps per CUDA device: its primary context (the
// one CuPy, Numba and PyTorch use, so memory and streams are shared with them)
// and a private non-blocking stream for zero-filling new memory.
type device struct {
	ctx  uintptr
	zero uintptr
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
	d := &device{ctx: ctx, zero: zs}
	devices[ordinal] = d
	return d, nil
}
