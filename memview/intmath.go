package memview

import (
	"math"
	"math/bits"
)

// mulInt returns a*b and whether it fits in an int.
func mulInt(a, b int) (int, bool) {
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(absU(a), absU(b))
	if hi != 0 || lo > math.MaxInt {
		return 0, false
	}
	if neg {
		return -int(lo), true
	}
	return int(lo), true
}

// addInt returns a+b and whether it fits in an int.
func addInt(a, b int) (int, bool) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, false
	}
	return c, true
}

// absU returns |a| as a uint64 (exact for math.MinInt too).
func absU(a int) uint64 {
	if a < 0 {
		return uint64(-(a + 1)) + 1
	}
	return uint64(a)
}

// compareU is cmp.Compare for uint64.
func compareU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
