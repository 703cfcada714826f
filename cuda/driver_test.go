package cuda

import (
	"errors"
	"testing"

	"github.com/memview/memview/memview"
)

// On machines without a driver (the build and CI machines) every entry point
// must fail cleanly with ErrNoDevice, never crash.
func TestNoDriverIsErrNoDevice(t *testing.T) {
	if Available() {
		t.Skip("a CUDA driver and device are present: this test covers machines without one")
	}
	if _, err := DeviceCount(); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("DeviceCount error %v does not wrap ErrNoDevice", err)
	}
	if _, err := PointerDevice(0x1000); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("PointerDevice error %v does not wrap ErrNoDevice", err)
	}
}

func TestErrorNames(t *testing.T) {
	cases := []struct {
		name     string
		code     int
		text     string
		noDevice bool
	}{
		{"no device", 100, "CUDA_ERROR_NO_DEVICE (CUresult 100)", true},
		{"out of memory", 2, "CUDA_ERROR_OUT_OF_MEMORY (CUresult 2)", false},
		{"unknown code", 9999, "CUresult 9999", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := resultError(c.code)
			if err.Error() != c.text || errors.Is(err, ErrNoDevice) != c.noDevice {
				t.Fatalf("%v: text %q, is ErrNoDevice %v", c.code, err.Error(), errors.Is(err, ErrNoDevice))
			}
		})
	}
}

func isNoDevice(err error) bool { return errors.Is(err, ErrNoDevice) }
func isInvalid(err error) bool  { return errors.Is(err, memview.ErrInvalid) }
