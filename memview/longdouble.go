package memview

import (
	"encoding/binary"
	"math"
	"math/big"
	"runtime"
)

// The platform's long double (the PEP 3118 code 'g', NumPy's longdouble, and the
// halves of 'Zg'), 16 bytes either way: x87 extended precision on x86-64
// (float80.go), IEEE 754 binary128 on 64-bit Arm, RISC-V and IBM Z. The codec of
// 'g' follows the platform the extension runs on, as NumPy's does.
var longDoubleBinary128 = runtime.GOARCH == "arm64" || runtime.GOARCH == "riscv64" || runtime.GOARCH == "s390x"

// longDoubleToFloat64 reads the platform's long double in e (16 bytes in byte
// order o) as the nearest float64.
func longDoubleToFloat64(o binary.ByteOrder, e []byte) float64 {
	if longDoubleBinary128 {
		return quadToFloat64(o, e)
	}
	return extendedToFloat64(o, e)
}

// float64ToLongDouble writes x as the platform's long double into e, exactly.
func float64ToLongDouble(o binary.ByteOrder, e []byte, x float64) {
	if longDoubleBinary128 {
		float64ToQuad(o, e, x)
		return
	}
	float64ToExtended(o, e, x)
}

// IEEE 754 binary128: a sign, a 15-bit exponent biased by 16383 and a 112-bit
// fraction with an implicit integer bit (none where the exponent is 0).

// quadToFloat64 reads the binary128 value in e (16 bytes in byte order o) as the
// nearest float64, ties to even; values beyond float64's range are ±Inf and NaN
// payloads keep their top bits.
func quadToFloat64(o binary.ByteOrder, e []byte) float64 {
	le := littleExtended(o, e)
	lo := binary.LittleEndian.Uint64(le[:8])
	hi := binary.LittleEndian.Uint64(le[8:])
	neg, exp := hi>>63 != 0, int(hi>>48&0x7fff)
	fracHi := hi & (1<<48 - 1) // the top 48 of the fraction's 112 bits
	sign := 1.0
	if neg {
		sign = -1
	}
	switch {
	case exp == 0x7fff && fracHi == 0 && lo == 0:
		return math.Inf(int(sign))
	case exp == 0x7fff:
		return math.Copysign(math.Float64frombits(0x7ff8000000000000|fracHi<<4|lo>>60), sign)
	case exp == 0 && fracHi == 0 && lo == 0:
		return math.Copysign(0, sign)
	}
	// (implicit bit, fraction) * 2**(exp - 16383 - 112), rounded once to float64
	m := new(big.Int).SetUint64(fracHi)
	if exp != 0 {
		m.SetBit(m, 48, 1)
	} else {
		exp = 1 // subnormal: the scale of the smallest normal
	}
	m.Lsh(m, 64).Or(m, new(big.Int).SetUint64(lo))
	f := new(big.Float).SetPrec(113).SetInt(m)
	f.SetMantExp(f, exp-16383-112)
	x, _ := new(big.Float).SetPrec(53).SetMode(big.ToNearestEven).Set(f).Float64()
	return math.Copysign(x, sign)
}

// float64ToQuad writes x as a binary128 value into e (16 bytes in byte order o),
// exactly.
func float64ToQuad(o binary.ByteOrder, e []byte, x float64) {
	var hi, lo uint64
	if math.Signbit(x) {
		hi = 1 << 63
	}
	switch {
	case math.IsInf(x, 0):
		hi |= 0x7fff << 48
	case math.IsNaN(x):
		frac := math.Float64bits(x) & (1<<52 - 1) // its 52 bits at the top of the 112
		hi |= 0x7fff<<48 | 1<<47 | frac>>4
		lo = frac << 60
	case x != 0:
		frac, exp := math.Frexp(math.Abs(x)) // x = frac * 2**exp, frac in [0.5, 1): normal in binary128
		mant := uint64(frac*(1<<53)) & (1<<52 - 1)
		hi |= uint64(exp-1+16383)<<48 | mant>>4
		lo = mant << 60
	}
	var le [16]byte
	binary.LittleEndian.PutUint64(le[:8], lo)
	binary.LittleEndian.PutUint64(le[8:], hi)
	if o == binary.ByteOrder(binary.BigEndian) {
		for i := range le {
			e[i] = le[15-i]
		}
		return
	}
	copy(e, le[:])
}
