package cuda

import (
	"errors"
	"fmt"
)

// ErrNoDevice is wrapped by every error that means CUDA cannot be used here:
// no driver library, or a driver that sees no device.
var ErrNoDevice = errors.New("cuda: no CUDA device")

// Error is a CUresult other than CUDA_SUCCESS.
type Error struct {
	Code int // the CUresult
}

func (e *Error) Error() string {
	if name, ok := resultNames[e.Code]; ok {
		return fmt.Sprintf("%s (CUresult %d)", name, e.Code)
	}
	return fmt.Sprintf("CUresult %d", e.Code)
}

// Is makes the results that mean "no usable device" match ErrNoDevice.
func (e *Error) Is(target error) bool {
	return target == ErrNoDevice && (e.Code == 100 || e.Code == 101 || e.Code == 3)
}

// resultNames are the CUresult values a user is likely to meet (from cuda.h).
var resultNames = map[int]string{
	1:   "CUDA_ERROR_INVALID_VALUE",
	2:   "CUDA_ERROR_OUT_OF_MEMORY",
	3:   "CUDA_ERROR_NOT_INITIALIZED",
	100: "CUDA_ERROR_NO_DEVICE",
	101: "CUDA_ERROR_INVALID_DEVICE",
	201: "CUDA_ERROR_INVALID_CONTEXT",
	400: "CUDA_ERROR_INVALID_HANDLE",
	700: "CUDA_ERROR_ILLEGAL_ADDRESS",
}

func resultError(code int) error { return &Error{Code: code} }
