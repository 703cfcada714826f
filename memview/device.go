package memview

import (
	"fmt"
	"strconv"
	"strings"
)

// DeviceKind says what kind of memory a Buffer holds.
type DeviceKind uint8

// The kinds of memory memview knows. Only CPU memory is allocated by this
// package; the others come from package cuda or from an imported CUDA array.
const (
	CPU         DeviceKind = iota // host memory
	CUDA                          // CUDA device memory: not addressable by the host
	CUDAHost                      // page-locked host memory registered with CUDA
	CUDAManaged                   // CUDA managed (unified) memory
)

// Device is where a buffer's memory lives: a kind and, for CUDA kinds, the
// device ordinal. The zero Device is the CPU.
type Device struct {
	Kind DeviceKind
	ID   int
}

// String names the device as memview's Python API does: "cpu", "cuda:0",
// "cuda_host", "cuda_managed:0".
func (d Device) String() string {
	switch d.Kind {
	case CUDA:
		return "cuda:" + strconv.Itoa(d.ID)
	case CUDAHost:
		return "cuda_host"
	case CUDAManaged:
		return "cuda_managed:" + strconv.Itoa(d.ID)
	}
	return "cpu"
}

// HostAccessible reports whether the CPU may read and write the memory
// directly (everything but CUDA device memory).
func (d Device) HostAccessible() bool { return d.Kind != CUDA }

// ParseDevice reads "cpu", "cuda" (device 0) or "cuda:N". Anything else
// wraps ErrInvalid.
func ParseDevice(s string) (Device, error) {
	switch {
	case s == "cpu":
		return Device{}, nil
	case s == "cuda":
		return Device{Kind: CUDA}, nil
	case strings.HasPrefix(s, "cuda:"):
		n, err := strconv.Atoi(s[len("cuda:"):])
		if err == nil && n >= 0 {
			return Device{Kind: CUDA, ID: n}, nil
		}
	}
	return Device{}, fmt.Errorf("memview: device %q: want \"cpu\", \"cuda\" or \"cuda:N\": %w", s, ErrInvalid)
}
