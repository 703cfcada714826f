package cuda

import (
	"fmt"
	"sync"
)

// driver state, loaded once.
var (
	loadOnce sync.Once
	loadErr  error
)

// load opens the driver library and initialises it, once per process.
func load() error {
	loadOnce.Do(func() { loadErr = drvLoad() })
	return loadErr
}

// DeviceCount returns the number of CUDA devices, or an error wrapping
// ErrNoDevice when there is no driver or no device.
func DeviceCount() (int, error) {
	if err := load(); err != nil {
		return 0, err
	}
	n, err := drvDeviceCount()
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, fmt.Errorf("cuda: the driver sees no device: %w", ErrNoDevice)
	}
	return n, nil
}

// Available reports whether a CUDA driver and at least one device are present.
func Available() bool {
	n, err := DeviceCount()
	return err == nil && n > 0
}

// PointerDevice returns the ordinal of the device a CUDA address belongs to.
func PointerDevice(addr uintptr) (int, error) {
	if err := load(); err != nil {
		return 0, err
	}
	return drvPointerDevice(addr)
}

// CurrentDevice returns the device of the CUDA context current on the calling
// thread — the device CuPy, Numba and PyTorch would use now — and false when
// no context is current (or there is no driver).
func CurrentDevice() (int, bool) {
	if load() != nil {
		return 0, false
	}
	d, err := drvCurrentDevice()
	return d, err == nil && d >= 0
}

// check turns a CUresult into an error naming the call, or nil.
func check[T ~int32 | ~int](rc T, what string, args ...any) error {
	if rc == 0 {
		return nil
	}
	return fmt.Errorf("cuda: %s: %w", fmt.Sprintf(what, args...), resultError(int(rc)))
}

// Memory kinds for drvAlloc and drvFree.
const (
	memDevice  = 0
	memPinned  = 1
	memManaged = 2
)

func memKindName(kind int) string {
	return [...]string{"device", "pinned host", "managed"}[kind]
}
