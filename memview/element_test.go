package memview

import (
	"errors"
	"math"
	"slices"
	"testing"
	"unsafe"
)

func TestFloat64RoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		dt   DType
		set  float64
		want float64
		err  error
	}{
		{"bool true", Bool, 2.5, 1, nil},
		{"bool false", Bool, 0, 0, nil},
		{"bool nan", Bool, math.NaN(), 1, nil},
		{"int8 truncates", Int8, -3.7, -3, nil},
		{"int8 wraps", Int8, 200, -56, nil},
		{"int16", Int16, -1234.9, -1234, nil},
		{"int32 max", Int32, math.MaxInt32, math.MaxInt32, nil},
		{"int64", Int64, -(1 << 53), -(1 << 53), nil},
		{"uint8", Uint8, 255.9, 255, nil},
		{"uint8 negative wraps", Uint8, -1, 255, nil},
		{"uint16", Uint16, 65535, 65535, nil},
		{"uint32", Uint32, 4e9, 4e9, nil},
		{"uint64 high", Uint64, 1 << 63, 1 << 63, nil},
		{"uint64 small", Uint64, 42.9, 42, nil},
		{"float16 third", Float16, 1.0 / 3, 0.333251953125, nil},
		{"float16 max", Float16, 65504, 65504, nil},
		{"float16 overflow", Float16, 1e5, math.Inf(1), nil},
		{"float16 smallest subnormal", Float16, math.Ldexp(1, -24), math.Ldexp(1, -24), nil},
		{"float16 negative", Float16, -2.5, -2.5, nil},
		{"float32", Float32, 0.1, float64(float32(0.1)), nil},
		{"float64", Float64, 0.1, 0.1, nil},
		{"complex64", Complex64, 1.5, 0, ErrType},
		{"complex128", Complex128, 1.5, 0, ErrType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPool(t)
			a := must(t)(Zeros(p, []int{3}, tc.dt, 'C'))
			if err := a.SetFloat64(tc.set, 1); err != nil {
				t.Fatal(err)
			}
			got, err := a.Float64(1)
			wantErr(t, err, tc.err)
			if err == nil && got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if tc.dt.Kind() == 'c' {
				b, _ := a.ItemBytes(1)
				var re float64
				if tc.dt == Complex64 {
					re = float64(real(*(*complex64)(unsafe.Pointer(&b[0]))))
				} else {
					re = real(*(*complex128)(unsafe.Pointer(&b[0])))
				}
				if re != 1.5 {
					t.Fatalf("real part %v", re)
				}
			}
			for _, i := range []int{0, 2} { // neighbours untouched
				if b, _ := a.ItemBytes(i); slices.ContainsFunc(b, func(c byte) bool { return c != 0 }) {
					t.Fatalf("element %d was written", i)
				}
			}
		})
	}
}

func TestFloat16Exhaustive(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		v := float16ToFloat64(uint16(h))
		if math.IsNaN(v) {
			if h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
				t.Fatalf("%#04x decoded as NaN", h)
			}
			continue
		}
		if back := float64ToFloat16(v); back != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, v, back)
		}
	}
	for _, tc := range []struct {
		name string
		in   float64
		want uint16
	}{
		{"one", 1, 0x3c00},
		{"tie to even down", 1 + math.Ldexp(1, -11), 0x3c00},
		{"tie to even up", 1 + 3*math.Ldexp(1, -11), 0x3c02},
		{"round to max", 65519, 0x7bff},
		{"round to inf", 65520, 0x7c00},
		{"negative zero", math.Copysign(0, -1), 0x8000},
		{"underflow", math.Ldexp(1, -26), 0},
		{"subnormal rounds to normal", math.Ldexp(1, -14) - math.Ldexp(1, -26), 0x0400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := float64ToFloat16(tc.in); got != tc.want {
				t.Fatalf("float64ToFloat16(%v) = %#04x, want %#04x", tc.in, got, tc.want)
			}
		})
	}
}

func TestItemBytes(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Int16, 2, 3)
	for _, tc := range []struct {
		name string
		idx  []int
		want int16
		err  error
	}{
		{"first", []int{0, 0}, 0, nil},
		{"last", []int{1, 2}, 5, nil},
		{"negative", []int{-1, -3}, 3, nil},
		{"too few", []int{1}, 0, ErrIndex},
		{"too many", []int{1, 1, 1}, 0, ErrIndex},
		{"out of range", []int{2, 0}, 0, ErrIndex},
		{"negative out of range", []int{0, -4}, 0, ErrIndex},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := a.ItemBytes(tc.idx...)
			wantErr(t, err, tc.err)
			if err != nil {
				return
			}
			if len(b) != 2 || *(*int16)(unsafe.Pointer(&b[0])) != tc.want {
				t.Fatalf("got %v", b)
			}
		})
	}
	b, _ := a.ItemBytes(1, 1)
	b[0] = 99 // aliases the memory
	if v, _ := a.Float64(1, 1); v != 99 {
		t.Fatalf("write through ItemBytes not visible: %v", v)
	}
	s := must(t)(a.Index(Int(1), Int(2)))
	if v, err := s.Float64(); v != 5 || err != nil {
		t.Fatalf("0-d read %v, %v", v, err)
	}
}

func TestEach(t *testing.T) {
	p := newTestPool(t)
	_, view := runningExample(t, p)
	var got []float64
	err := view.Each(func(p unsafe.Pointer) error {
		got = append(got, *(*float64)(p))
		return nil
	})
	if err != nil || !slices.Equal(got, floats(18, 20, 22, 12, 14, 16, 6, 8, 10, 0, 2, 4)) {
		t.Fatalf("Each visited %v, %v", got, err)
	}
	stop := errors.New("stop")
	n := 0
	err = view.Each(func(unsafe.Pointer) error {
		n++
		if n == 5 {
			return stop
		}
		return nil
	})
	if err != stop || n != 5 {
		t.Fatalf("Each returned %v after %d calls, want stop after 5", err, n)
	}
	e := must(t)(view.Index(Slice(0, 0, 1)))
	if err := e.Each(func(unsafe.Pointer) error { return stop }); err != nil {
		t.Fatalf("Each of an empty array: %v", err)
	}
	s := must(t)(view.Index(Int(0), Int(0)))
	n = 0
	_ = s.Each(func(unsafe.Pointer) error { n++; return nil })
	if n != 1 {
		t.Fatalf("Each of a 0-d array called %d times", n)
	}
}

func TestFloat16NaNPayload(t *testing.T) {
	// NumPy: float64 NaN bits 0x7ff80c0000000000 become half 0x7e03, and a
	// payload only in the low bits still gives a NaN (0x7c01).
	for _, tc := range []struct {
		bits uint64
		half uint16
	}{{0x7ff8000000000000, 0x7e00}, {0x7ff80c0000000000, 0x7e03}, {0xfff8000000000001, 0xfe00},
		{0x7ff0000000000001, 0x7c01}, {0x7ffff80000000001, 0x7ffe}} {
		if h := float64ToFloat16(math.Float64frombits(tc.bits)); h != tc.half {
			t.Errorf("%#x: half %#04x, want %#04x", tc.bits, h, tc.half)
		}
		if back := float64ToFloat16(float16ToFloat64(tc.half)); back != tc.half {
			t.Errorf("%#04x does not round-trip: %#04x", tc.half, back)
		}
	}
}
