package gopkg

import (
	"fmt"

	"github.com/memview/memview/memview"
)

// Echo functions, one per Go integer type: Python's integer arrives as that
// type exactly, or is refused before Go runs (OverflowError outside the
// type's range, TypeError for a bool or a non-integer).

// EchoInt8 returns v.
func EchoInt8(v int8) int8 { return v }

// EchoInt16 returns v.
func EchoInt16(v int16) int16 { return v }

// EchoInt32 returns v.
func EchoInt32(v int32) int32 { return v }

// EchoInt64 returns v.
func EchoInt64(v int64) int64 { return v }

// EchoInt returns v.
func EchoInt(v int) int { return v }

// EchoRune returns v.
func EchoRune(v rune) rune { return v }

// EchoUint8 returns v.
func EchoUint8(v uint8) uint8 { return v }

// EchoByte returns v.
func EchoByte(v byte) byte { return v }

// EchoUint16 returns v.
func EchoUint16(v uint16) uint16 { return v }

// EchoUint32 returns v.
func EchoUint32(v uint32) uint32 { return v }

// EchoUint64 returns v.
func EchoUint64(v uint64) uint64 { return v }

// EchoUint returns v.
func EchoUint(v uint) uint { return v }

// EchoUintptr returns v.
func EchoUintptr(v uintptr) uintptr { return v }

// PutUint8 writes v into x[i]: a refused v must leave x as it was.
func PutUint8(x []uint8, i int, v uint8) error {
	if i < 0 || i >= len(x) {
		return fmt.Errorf("gopkg.PutUint8: index %d is out of bounds for a slice of %d: %w", i, len(x), memview.ErrIndex)
	}
	x[i] = v
	return nil
}

// EchoFloat64 returns v: float64 arguments.
func EchoFloat64(v float64) float64 { return v }

// EchoFloat32 returns v: float32 arguments.
func EchoFloat32(v float32) float32 { return v }

// EchoBool returns v: bool arguments.
func EchoBool(v bool) bool { return v }

// EchoString returns v: string arguments.
func EchoString(v string) string { return v }

// StringLen returns the length of v in bytes (UTF-8).
func StringLen(v string) int { return len(v) }
