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

// ParseDevice reads the names String gives: "cpu", "cuda" (device 0),
// "cuda:N", "cuda_host" (pinned host memory), "cuda_managed" (device 0) or
// "cuda_managed:N". Anything else wraps ErrInvalid.
func ParseDevice(s string) (Device, error) {
	switch s {
	case "cpu":
		return Device{}, nil
	case "cuda":
		return Device{Kind: CUDA}, nil
	case "cuda_host":
		return Device{Kind: CUDAHost}, nil
	case "cuda_managed":
		return Device{Kind: CUDAManaged}, nil
	}
	for _, k := range []DeviceKind{CUDA, CUDAManaged} {
		prefix := Device{Kind: k}.String()
		prefix = prefix[:strings.IndexByte(prefix, ':')+1]
		if rest, ok := strings.CutPrefix(s, prefix); ok {
			// Digits only: Atoi alone would take "+1".
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 && rest[0] >= '0' && rest[0] <= '9' {
				return Device{Kind: k, ID: n}, nil
			}
		}
	}
	return Device{}, fmt.Errorf("memview: device %q: want \"cpu\", \"cuda\", \"cuda:N\", \"cuda_host\" or \"cuda_managed[:N]\": %w", s, ErrInvalid)
}
