package memview

import (
	"fmt"
	"math"
)

// sizeText writes a byte count as NumPy's out-of-memory message does: bytes
// below 1 KiB, else three significant figures in the largest binary unit that
// keeps the number at least 1 ("1.00 GiB", "12.5 MiB", "768. KiB"), up to EiB.
func sizeText(n uint64) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	units := [...]string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	u := 0
	v := float64(n) / 1024
	for u < len(units)-1 && v >= 1024 {
		v /= 1024
		u++
	}
	// Rounding to three figures may reach 1024 (1023.9 KiB): say 1.00 MiB.
	if u < len(units)-1 && math.Round(v) >= 1024 {
		v /= 1024
		u++
	}
	switch {
	case v < 9.995:
		return fmt.Sprintf("%.2f %s", v, units[u])
	case v < 99.95:
		return fmt.Sprintf("%.1f %s", v, units[u])
	default: // NumPy keeps the point: "768. KiB"
		return fmt.Sprintf("%.0f. %s", v, units[u])
	}
}

// errAlloc is the error of an array whose memory could not be had, in NumPy's
// words, with the reason (err, which wraps ErrNoMemory where memory ran out).
func errAlloc(nbytes int, shape []int, dt DType, err error) error {
	return fmt.Errorf("memview: unable to allocate %s for an array with shape %s and data type %s: %w",
		sizeText(uint64(nbytes)), tuple(shape), dt, err)
}
