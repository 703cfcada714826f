package gopkg

import (
	"hash/crc32"
	"unsafe"
)

// The read-only analysis of slice parameters (tools/gopysig/readonly.go):
// one function for each thing it proves or finds.

// Checksum adds the bytes of b: Go only reads it (proven read-only).
func Checksum(b []byte) uint32 {
	var s uint32
	for _, c := range b {
		s += uint32(c)
	}
	return s
}

// CRC is the IEEE CRC-32 of b, as zlib.crc32: hash/crc32 calls assembly,
// which the analysis does not read (inconclusive: copied for the call).
func CRC(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

// HexEncode writes the hexadecimal digits of src into dst (a new slice when
// dst is nil or too short) and returns them: a store into dst, src only read.
func HexEncode(dst, src []byte) []byte {
	const digits = "0123456789abcdef"
	if len(dst) < 2*len(src) {
		dst = make([]byte, 2*len(src))
	}
	for i, c := range src {
		dst[2*i], dst[2*i+1] = digits[c>>4], digits[c&15]
	}
	return dst[:2*len(src)]
}

var retained []float64

// RetainAddress keeps x (so the analysis cannot follow it: inconclusive)
// and returns the address of its first element.
func RetainAddress(x []float64) uintptr {
	retained = x
	defer func() { retained = nil }()
	return uintptr(unsafe.Pointer(unsafe.SliceData(x)))
}

// ReadUnsafe reads the first 8 bytes of b through unsafe.Pointer: a load,
// proven read-only.
func ReadUnsafe(b []byte) uint64 {
	if len(b) < 8 {
		return 0
	}
	return *(*uint64)(unsafe.Pointer(unsafe.SliceData(b)))
}

// WriteUnsafe stores through uintptr arithmetic on b: a store.
func WriteUnsafe(b []byte) {
	if len(b) > 1 {
		p := unsafe.Pointer(uintptr(unsafe.Pointer(&b[0])) + 1)
		*(*byte)(p) = 9
	}
}

// WriteAppend appends onto b[:0], which writes b's memory: a store.
func WriteAppend(b []byte) int { return len(append(b[:0], 7)) }

// WriteArrayPointer stores through a slice-to-array-pointer conversion.
func WriteArrayPointer(b []byte) {
	if len(b) >= 2 {
		(*[2]byte)(b)[1] = 5
	}
}

// WriteClosure stores through a closure that captures b, called by a helper.
func WriteClosure(b []byte) {
	each(len(b), func(i int) { b[i] = 1 })
}

func each(n int, f func(int)) {
	for i := range n {
		f(i)
	}
}

// WriteCopy copies into b: a store.
func WriteCopy(b []byte) int { return copy(b, "xy") }
