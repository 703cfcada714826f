package memview

import (
	"encoding/binary"
	"math"
	"runtime"
	"testing"
)

func TestQuadPrecision(t *testing.T) {
	le, be := binary.ByteOrder(binary.LittleEndian), binary.ByteOrder(binary.BigEndian)
	e := make([]byte, 16)
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -1.5, math.Pi, 1e308, math.MaxFloat64,
		math.SmallestNonzeroFloat64, 2.2250738585072014e-308, -3e-310, math.Inf(1), math.Inf(-1)} {
		for _, o := range []binary.ByteOrder{le, be} {
			float64ToQuad(o, e, x)
			if y := quadToFloat64(o, e); math.Float64bits(y) != math.Float64bits(x) {
				t.Errorf("%v (%v): read back %v", x, o, y)
			}
		}
	}
	// 1.0: exponent 16383, fraction 0; NumPy's float128 on aarch64 writes these bytes
	float64ToQuad(le, e, 1)
	if hi, lo := binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[:8]); hi != 0x3fff<<48 || lo != 0 {
		t.Fatalf("1.0 = %#x %#x", hi, lo)
	}
	// 1 + 2**-53 is a tie: to even (1); a bit more rounds up to 1 + 2**-52
	binary.LittleEndian.PutUint64(e[8:], 0x3fff<<48)
	binary.LittleEndian.PutUint64(e[:8], 1<<(112-53)) // fraction bit 112-k is 2**-k
	if y := quadToFloat64(le, e); y != 1 {
		t.Errorf("1 + 2**-53 read as %v", y)
	}
	binary.LittleEndian.PutUint64(e[:8], 1<<(112-53)|1)
	if y := quadToFloat64(le, e); y != 1+math.Pow(2, -52) {
		t.Errorf("1 + 2**-53 + 2**-112 read as %v", y)
	}
	// beyond float64: Inf; a binary128 subnormal: 0
	binary.LittleEndian.PutUint64(e[8:], 0x7ffe<<48)
	binary.LittleEndian.PutUint64(e[:8], 0)
	if y := quadToFloat64(le, e); !math.IsInf(y, 1) {
		t.Errorf("2**16383 read as %v", y)
	}
	binary.LittleEndian.PutUint64(e[8:], 1<<63|1)
	if y := quadToFloat64(le, e); y != 0 || !math.Signbit(y) {
		t.Errorf("a negative subnormal read as %v", y)
	}
	float64ToQuad(le, e, math.NaN())
	if y := quadToFloat64(le, e); !math.IsNaN(y) {
		t.Errorf("NaN read as %v", y)
	}
}

func TestLongDoubleFollowsThePlatform(t *testing.T) {
	e := make([]byte, 16)
	float64ToLongDouble(binary.LittleEndian, e, 1)
	quad := binary.LittleEndian.Uint64(e[8:]) == 0x3fff<<48
	if want := runtime.GOARCH == "arm64" || runtime.GOARCH == "riscv64" || runtime.GOARCH == "s390x"; quad != want {
		t.Fatalf("GOARCH %s: long double is binary128: %v", runtime.GOARCH, quad)
	}
	if y := longDoubleToFloat64(binary.LittleEndian, e); y != 1 {
		t.Fatalf("read back %v", y)
	}
}
