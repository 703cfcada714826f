//go:build amd64 && !race && !purego

package memview

import "unsafe"

// ntCopy copies blocks*ntBlock bytes from src to dst, which must be 16-byte
// aligned and must not overlap src, with non-temporal stores
// (copy_nt_amd64.s).
//
//go:noescape
func ntCopy(dst, src unsafe.Pointer, blocks uintptr)

const (
	ntBlock      = 16 << 10
	ntCallBlocks = 64 // 1 MiB per call: a goroutine can be preempted between calls
)

// copyLarge copies n bytes from s to d, which must not overlap. From
// ntMinBytes up it writes with non-temporal stores, about 1.6 times as fast
// as the runtime's memmove on one core for copies far larger than the caches.
func copyLarge(d, s unsafe.Pointer, n int) {
	if n < ntMinBytes {
		memmove(d, s, n)
		return
	}
	off := int(-uintptr(d) & 63) // up to a cache line boundary of d
	memmove(d, s, off)
	for n-off >= ntBlock {
		blocks := min((n-off)/ntBlock, ntCallBlocks)
		ntCopy(unsafe.Add(d, off), unsafe.Add(s, off), uintptr(blocks))
		off += blocks * ntBlock
	}
	if off < n {
		memmove(unsafe.Add(d, off), unsafe.Add(s, off), n-off)
	}
}
