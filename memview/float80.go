package memview

import (
	"encoding/binary"
	"math"
	"math/big"
)

// x86 extended precision ("long double" on x86-64 Linux, NumPy's float128 and
// the PEP 3118 code 'g'): a 64-bit significand with an explicit integer bit, a
// 15-bit exponent biased by 16383 and a sign, in the first 10 of 16 bytes
// (little-endian); the other 6 are padding. Every float64 is exactly one
// extended value; reading one rounds it to the nearest float64.

// extendedToFloat64 reads the extended value in e (16 bytes in byte order o)
// as the nearest float64, ties to even; values beyond float64's range are
// ±Inf and NaN payloads keep their top bits.
func extendedToFloat64(o binary.ByteOrder, e []byte) float64 {
	le := littleExtended(o, e)
	mant := binary.LittleEndian.Uint64(le[:8])
	se := binary.LittleEndian.Uint16(le[8:10])
	neg, exp := se&0x8000 != 0, int(se&0x7fff)
	sign := 1.0
	if neg {
		sign = -1
	}
	switch {
	case exp == 0x7fff && mant<<1 == 0:
		return math.Inf(int(sign))
	case exp == 0x7fff:
		return math.Copysign(math.Float64frombits(0x7ff8000000000000|(mant<<1>>12)), sign)
	case mant == 0:
		return math.Copysign(0, sign)
	}
	// mant * 2**(exp - 16383 - 63), rounded once to float64.
	if exp == 0 {
		exp = 1 // denormal: the same scale as the smallest normal
	}
	f := new(big.Float).SetPrec(64).SetUint64(mant)
	f.SetMantExp(f, exp-16383-63)
	x, _ := new(big.Float).SetPrec(53).SetMode(big.ToNearestEven).Set(f).Float64()
	return math.Copysign(x, sign)
}

// float64ToExtended writes x as an extended value into e (16 bytes in byte
// order o), exactly, with zero padding.
func float64ToExtended(o binary.ByteOrder, e []byte, x float64) {
	var le [16]byte
	var se uint16
	var mant uint64
	if math.Signbit(x) {
		se = 0x8000
	}
	switch {
	case math.IsInf(x, 0):
		se, mant = se|0x7fff, 1<<63
	case math.IsNaN(x):
		se, mant = se|0x7fff, 1<<63|math.Float64bits(x)<<12>>1|1<<62
	case x != 0:
		frac, exp := math.Frexp(math.Abs(x)) // x = frac * 2**exp, frac in [0.5, 1)
		mant = uint64(frac*(1<<53)) << 11
		se |= uint16(exp - 1 + 16383)
	}
	binary.LittleEndian.PutUint64(le[:8], mant)
	binary.LittleEndian.PutUint16(le[8:10], se)
	if o == binary.ByteOrder(binary.BigEndian) {
		for i := range le {
			e[i] = le[15-i]
		}
		return
	}
	copy(e, le[:])
}

// littleExtended returns the 16 bytes of e in little-endian order.
func littleExtended(o binary.ByteOrder, e []byte) [16]byte {
	var le [16]byte
	if o == binary.ByteOrder(binary.BigEndian) {
		for i := range le {
			le[i] = e[15-i]
		}
	} else {
		copy(le[:], e)
	}
	return le
}
