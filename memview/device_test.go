package memview

import (
	"errors"
	"testing"
)

func TestParseDevice(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want Device
		ok   bool
	}{
		{"cpu", "cpu", Device{}, true},
		{"cuda default", "cuda", Device{Kind: CUDA}, true},
		{"cuda ordinal", "cuda:3", Device{Kind: CUDA, ID: 3}, true},
		{"negative ordinal", "cuda:-1", Device{}, false},
		{"no ordinal", "cuda:", Device{}, false},
		{"unknown", "tpu", Device{}, false},
		{"upper case", "CPU", Device{}, false},
		{"plus sign", "cuda:+1", Device{}, false},
		{"pinned", "cuda_host", Device{Kind: CUDAHost}, true},
		{"pinned ordinal", "cuda_host:0", Device{}, false},
		{"managed default", "cuda_managed", Device{Kind: CUDAManaged}, true},
		{"managed ordinal", "cuda_managed:2", Device{Kind: CUDAManaged, ID: 2}, true},
		{"managed bad ordinal", "cuda_managed:x", Device{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseDevice(c.in)
			if c.ok != (err == nil) || got != c.want {
				t.Fatalf("ParseDevice(%q) = %v, %v", c.in, got, err)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			if c.ok && got.String() != map[string]string{"cuda": "cuda:0", "cuda_managed": "cuda_managed:0"}[c.in] && got.String() != c.in {
				t.Fatalf("String() = %q", got.String())
			}
		})
	}
}

// A device array's layout works like any other, but the CPU never touches its
// elements: the address below is not mapped on the host.
func TestDeviceArrayRefusesHostAccess(t *testing.T) {
	released := 0
	const addr = uintptr(0x7f0000000000) // a device address, never dereferenced
	buf := WrapDevice(addr, 96, false, Device{Kind: CUDA, ID: 1}, func() { released++ })
	a, err := NewArray(buf, Float64, []int{3, 4}, nil, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	_ = buf.Release()
	if a.Device() != (Device{Kind: CUDA, ID: 1}) || a.Device().HostAccessible() {
		t.Fatalf("device %v", a.Device())
	}
	v, err := a.Index(Full(), Slice(3, 0, -2))
	if err != nil {
		t.Fatal(err)
	}
	if uintptr(v.Pointer())-addr != 24 || v.Strides()[1] != -16 {
		t.Fatalf("view at +%d strides %v", uintptr(v.Pointer())-addr, v.Strides())
	}
	if tv, err := v.Transpose(); err != nil || tv.Release() != nil {
		t.Fatal(err)
	}
	for name, op := range map[string]func() error{
		"Copy":       func() error { _, err := a.Copy(nil, 'C'); return err },
		"CopyInto":   func() error { return CopyInto(a, a) },
		"FillBytes":  func() error { return a.FillBytes(make([]byte, 8)) },
		"Float64":    func() error { _, err := a.Float64(0, 0); return err },
		"SetFloat64": func() error { return a.SetFloat64(1, 0, 0) },
		"ItemBytes":  func() error { _, err := a.ItemBytes(0, 0); return err },
		"Each":       func() error { return a.Each(nil) },
	} {
		if err := op(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s on device memory: %v, want ErrInvalid", name, err)
		}
	}
	if err := v.Release(); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(); err != nil || released != 1 {
		t.Fatalf("release: %v, release func ran %d times", err, released)
	}
}

// fakeDeviceAllocator hands out host memory but says it is on a CUDA device,
// to check what a Pool and a Buffer do with a DeviceAllocator.
type fakeDeviceAllocator struct {
	GoAllocator
	dev Device
}

func (f *fakeDeviceAllocator) Device() Device { return f.dev }

func TestPoolOverDeviceAllocator(t *testing.T) {
	dev := Device{Kind: CUDA, ID: 2}
	p := NewPool(&fakeDeviceAllocator{dev: dev})
	if p.Device() != dev {
		t.Fatalf("pool device %v", p.Device())
	}
	if NewPool(&GoAllocator{}).Device() != (Device{}) {
		t.Fatal("a host pool must be on the CPU")
	}
	a, err := Empty(p, []int{4, 2}, Int32, 'C')
	if err != nil {
		t.Fatal(err)
	}
	if a.Device() != dev || a.Buffer().Bytes() != nil {
		t.Fatalf("device %v, Bytes() %v: device memory must not be handed out as bytes", a.Device(), a.Buffer().Bytes())
	}
	if err := a.FillBytes([]byte{1, 2, 3, 4}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("host fill of device memory: %v", err)
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if p.NumLive() != 0 || p.BytesAllocated() != 0 {
		t.Fatalf("pool not back to zero: %d live, %d bytes", p.NumLive(), p.BytesAllocated())
	}
}
