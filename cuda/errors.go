package cuda

import (
	"errors"
	"fmt"

	"github.com/memview/memview/memview"
)

// ErrNoDevice is wrapped by every error that means CUDA cannot be used here:
// no driver library, or a driver that sees no device.
var ErrNoDevice = errors.New("cuda: no CUDA device")

// ErrInvalidStream is wrapped when a destroyed stream is used.
var ErrInvalidStream = errors.New("cuda: invalid stream")

// ErrInvalidDevice is wrapped when a device ordinal names no device.
var ErrInvalidDevice = errors.New("cuda: invalid device ordinal")

// Error is a CUresult other than CUDA_SUCCESS.
type Error struct {
	Code int // the CUresult
}

// Error names the result, such as "CUDA_ERROR_OUT_OF_MEMORY (CUresult 2)".
func (e *Error) Error() string {
	if name, ok := resultNames[e.Code]; ok {
		return fmt.Sprintf("%s (CUresult %d)", name, e.Code)
	}
	return fmt.Sprintf("CUresult %d", e.Code)
}

// Is makes the results that mean "no usable device" match ErrNoDevice, and
// CUDA_ERROR_OUT_OF_MEMORY match memview.ErrNoMemory (a MemoryError in Python).
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNoDevice:
		return e.Code == 100 || e.Code == 101 || e.Code == 3
	case memview.ErrNoMemory:
		return e.Code == 2
	}
	return false
}

// resultNames are the CUresult values a user is likely to meet (from cuda.h).
var resultNames = map[int]string{
	1:   "CUDA_ERROR_INVALID_VALUE",
	2:   "CUDA_ERROR_OUT_OF_MEMORY",
	3:   "CUDA_ERROR_NOT_INITIALIZED",
	100: "CUDA_ERROR_NO_DEVICE",
	101: "CUDA_ERROR_INVALID_DEVICE",
	201: "CUDA_ERROR_INVALID_CONTEXT",
	217: "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
	600: "CUDA_ERROR_NOT_READY",
	400: "CUDA_ERROR_INVALID_HANDLE",
	700: "CUDA_ERROR_ILLEGAL_ADDRESS",
}

func resultError(code int) error { return &Error{Code: code} }
