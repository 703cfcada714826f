//go:build !cgo

package cuda

import "fmt"

// Without cgo there is no way to call the driver: this twin of driver.go keeps
// the package building (so its planners and their tests run with
// CGO_ENABLED=0, as memview's core does), and every entry point reports
// ErrNoDevice.

var errNoCgo = fmt.Errorf("cuda: memview was built without cgo, so it cannot load the CUDA driver: %w", ErrNoDevice)

func drvLoad() error                                              { return errNoCgo }
func drvDeviceCount() (int, error)                                { return 0, errNoCgo }
func drvPointerDevice(uintptr) (int, error)                       { return 0, errNoCgo }
func drvCurrentDevice() (int, error)                              { return -1, errNoCgo }
func drvPrimaryCtx(int) (uintptr, error)                          { return 0, errNoCgo }
func drvAlloc(uintptr, int, int, uintptr) (uintptr, error)        { return 0, errNoCgo }
func drvFree(uintptr, int, uintptr) error                         { return errNoCgo }
func drvStreamCreate(uintptr, uint) (uintptr, error)              { return 0, errNoCgo }
func drvStreamDestroy(uintptr, uintptr) error                     { return errNoCgo }
func drvStreamSynchronize(uintptr, uintptr) error                 { return errNoCgo }
func drvStreamQuery(uintptr, uintptr) (bool, error)               { return false, errNoCgo }
func drvStreamWaitEvent(uintptr, uintptr, uintptr) error          { return errNoCgo }
func drvEventCreate(uintptr) (uintptr, error)                     { return 0, errNoCgo }
func drvEventDestroy(uintptr, uintptr) error                      { return errNoCgo }
func drvEventRecord(uintptr, uintptr, uintptr) error              { return errNoCgo }
func drvEventSynchronize(uintptr, uintptr) error                  { return errNoCgo }
func drvCopy(uintptr, []copy2D, uintptr) error                    { return errNoCgo }
func drvMemset(uintptr, int, uintptr, uint32, int, uintptr) error { return errNoCgo }
func drvLaunch(uintptr, uintptr, *launch, uintptr) error          { return errNoCgo }

func drvModuleLoad(uintptr) (uintptr, [numKernels]uintptr, error) {
	return 0, [numKernels]uintptr{}, errNoCgo
}

// drvNewWord returns a word for the pending-stream value; without cgo no C
// code reads it, so Go memory serves.
func drvNewWord() *int64 { return new(int64) }

func drvFreeWord(*int64) {}
