package memview

import "math"

// float16ToFloat64 decodes an IEEE 754 binary16 value exactly.
func float16ToFloat64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0: // zero or subnormal
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 { // NaN: the payload moves to the top of float64's, as NumPy does
			return math.Float64frombits(uint64(h&0x8000)<<48 | 0x7ff0000000000000 | uint64(h&0x3ff)<<42)
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// float64ToFloat16 encodes v as binary16, rounding to nearest, ties to even,
// as NumPy does (overflow gives infinity, NaN stays NaN).
func float64ToFloat16(v float64) uint16 {
	bits := math.Float64bits(v)
	sign := uint16(bits>>48) & 0x8000
	a := math.Abs(v)
	switch {
	case math.IsNaN(v): // the top of the payload, kept a NaN, as NumPy does
		h := uint16(0x7c00 + (bits&0xfffffffffffff)>>42)
		if h == 0x7c00 {
			h++
		}
		return sign | h
	case a >= 65520: // rounds to infinity (max finite is 65504)
		return sign | 0x7c00
	case a < math.Ldexp(1, -14): // subnormal or zero: units of 2^-24
		return sign | uint16(math.RoundToEven(math.Ldexp(a, 24)))
	}
	frac, exp := math.Frexp(a) // a = frac * 2^exp, frac in [0.5, 1)
	// mantissa with the implicit bit in 11 bits: 1024..2047 (2048 after rounding up).
	m := uint16(math.RoundToEven(math.Ldexp(frac, 11)))
	e := exp - 1 + 15
	if m == 2048 {
		m = 1024
		e++
	}
	if e >= 0x1f {
		return sign | 0x7c00
	}
	return sign | uint16(e)<<10 | (m - 1024)
}
