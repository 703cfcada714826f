package cuda

import (
	"bytes"
	"errors"
	"testing"

	"github.com/memview/memview/memview"
)

func TestViewOrCopyOnTheHost(t *testing.T) {
	p := memview.NewCheckedPool(&memview.HostAllocator{})
	defer p.AssertEmpty(t)
	b, err := memview.NewBufferFrom(p, []byte("abc"), true)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	v, err := ViewOrCopy(b, memview.Device{}, nil, nil)
	if err != nil || v != b {
		t.Fatalf("host buffer on the host: %v, same %t", err, v == b)
	}
	_ = v.Release()
	// A host copy into a pool of the caller's choosing.
	c, err := CopyBuffer(b, memview.Device{}, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.Bytes(), []byte("abc")) || c.Pointer() == b.Pointer() {
		t.Fatalf("copy %q", c.Bytes())
	}
	_ = c.Release()
	if _, err := CopyBuffer(b, memview.Device{Kind: memview.CUDAHost}, p, nil); !isInvalid(err) {
		t.Fatalf("copy to pinned memory from a host pool: %v, want ErrInvalid", err)
	}
}

func TestViewOrCopyWithoutADriver(t *testing.T) {
	if Available() {
		t.Skip("a CUDA driver and device are present: this test covers machines without one")
	}
	p := memview.NewCheckedPool(&memview.HostAllocator{})
	defer p.AssertEmpty(t)
	b, err := memview.NewBuffer(p, 16)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	for _, dev := range []memview.Device{{Kind: memview.CUDA}, {Kind: memview.CUDAHost}} {
		if _, err := ViewOrCopy(b, dev, nil, nil); !errors.Is(err, ErrNoDevice) {
			t.Fatalf("copy to %v without a driver: %v, want ErrNoDevice", dev, err)
		}
	}
}
