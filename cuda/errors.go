package cuda

import (
	"errors"
	"fmt"

	"github.com/memview/memview/memview"
)

// ErrNoDevice is wrapped by every error that means CUDA cannot be used here:
// no driver library, a stub or mismatched driver, or a driver that sees no
// device.
var ErrNoDevice = errors.New("cuda: no CUDA device")

// ErrInvalidStream is wrapped when a destroyed stream is used.
var ErrInvalidStream = errors.New("cuda: invalid stream")

// ErrInvalidDevice is wrapped when a device ordinal names no device.
var ErrInvalidDevice = errors.New("cuda: invalid device ordinal")

// Error is a CUresult other than CUDA_SUCCESS.
type Error struct {
	Code int // the CUresult
}

// errorText, set where the driver can be called, returns the driver's own
// name and description of a CUresult (cuGetErrorName, cuGetErrorString), or
// empty strings.
var errorText func(code int) (name, desc string)

// Error names the result as the driver does, such as
// "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (CUresult 803): system has unsupported
// display driver / cuda driver combination", falling back to memview's own
// table of names where the driver is not loaded.
func (e *Error) Error() string {
	var name, desc string
	if errorText != nil {
		name, desc = errorText(e.Code)
	}
	if name == "" {
		name = resultNames[e.Code]
	}
	switch {
	case name == "":
		return fmt.Sprintf("CUresult %d", e.Code)
	case desc == "":
		return fmt.Sprintf("%s (CUresult %d)", name, e.Code)
	}
	return fmt.Sprintf("%s (CUresult %d): %s", name, e.Code, desc)
}

// Is makes the results that mean "no usable device" match ErrNoDevice, and
// CUDA_ERROR_OUT_OF_MEMORY match memview.ErrNoMemory (a MemoryError in Python).
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNoDevice:
		switch e.Code {
		case 3, 34, 100, 803, 804:
			return true
		}
	case memview.ErrNoMemory:
		return e.Code == 2
	}
	return false
}

// resultNames are the CUresult values a user is likely to meet (cuda.h),
// for when the driver cannot name them itself.
var resultNames = map[int]string{
	1:   "CUDA_ERROR_INVALID_VALUE",
	2:   "CUDA_ERROR_OUT_OF_MEMORY",
	3:   "CUDA_ERROR_NOT_INITIALIZED",
	34:  "CUDA_ERROR_STUB_LIBRARY",
	100: "CUDA_ERROR_NO_DEVICE",
	101: "CUDA_ERROR_INVALID_DEVICE",
	200: "CUDA_ERROR_INVALID_IMAGE",
	201: "CUDA_ERROR_INVALID_CONTEXT",
	217: "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
	218: "CUDA_ERROR_INVALID_PTX",
	222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	400: "CUDA_ERROR_INVALID_HANDLE",
	500: "CUDA_ERROR_NOT_FOUND",
	600: "CUDA_ERROR_NOT_READY",
	700: "CUDA_ERROR_ILLEGAL_ADDRESS",
	701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	716: "CUDA_ERROR_MISALIGNED_ADDRESS",
	803: "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	804: "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
}

func resultError(code int) error {
	if code == forkedCode {
		return ErrForked
	}
	return &Error{Code: code}
}

// forkedCode is what the driver file returns, without entering the driver, in
// a child forked after CUDA was initialised (MV_CU_FORKED in driver.go).
const forkedCode = 0x6d760001

// ErrForked is returned by every call in a process forked from a parent that
// had initialised CUDA: the driver cannot be used in such a child. It matches
// ErrNoDevice (CUDA cannot be used here).
var ErrForked error = forkedError{}

type forkedError struct{}

func (forkedError) Error() string {
	return "cuda: this process was forked after its parent had initialised CUDA, and CUDA cannot be used " +
		"in such a child; start worker processes with the 'spawn' or 'forkserver' method " +
		"(multiprocessing.get_context('spawn')) to use CUDA in them"
}

func (forkedError) Is(target error) bool { return target == ErrNoDevice }
